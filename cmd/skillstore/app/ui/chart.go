package ui

import (
	"html/template"
	"sort"
	"strconv"
	"time"
)

// chart is the loads log drawn as a grid: a row per skill (or client),
// a column per span of time, each cell's shade its share of the busiest
// cell. The template draws it as SVG rectangles whose sizes and
// opacities are attributes, not styles, which the page's CSP allows.
type chart struct {
	Rows          []chartRow
	Columns       int
	From, To      time.Time
	Span          string // the time one column stands for
	Width, Height int
}

type chartRow struct {
	Label string
	Total int
	Cells []chartCell
	Y     int
}

type chartCell struct {
	X, Count int
	Opacity  string
	When     string
}

const (
	chartColumns = 48
	cellWidth    = 14
	rowHeight    = 18
	maxRows      = 15
)

// loadsChart counts loads per key and per span of time, busiest rows
// first (at most maxRows).
func loadsChart(loads []loadJSON, key func(loadJSON) string) chart {
	c := chart{Columns: chartColumns}
	if len(loads) == 0 {
		return c
	}
	c.From, c.To = loads[0].Time, loads[0].Time
	for _, l := range loads {
		if l.Time.Before(c.From) {
			c.From = l.Time
		}
		if l.Time.After(c.To) {
			c.To = l.Time
		}
	}
	span := c.To.Sub(c.From)/chartColumns + 1
	c.Span = roundSpan(span)
	counts := map[string][]int{}
	totals := map[string]int{}
	for _, l := range loads {
		k := key(l)
		if counts[k] == nil {
			counts[k] = make([]int, chartColumns)
		}
		col := min(int(l.Time.Sub(c.From)/span), chartColumns-1)
		counts[k][col]++
		totals[k]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if totals[keys[i]] != totals[keys[j]] {
			return totals[keys[i]] > totals[keys[j]]
		}
		return keys[i] < keys[j]
	})
	keys = keys[:min(len(keys), maxRows)]
	busiest := 1
	for _, k := range keys {
		for _, n := range counts[k] {
			busiest = max(busiest, n)
		}
	}
	for i, k := range keys {
		r := chartRow{Label: k, Total: totals[k], Y: i * rowHeight}
		for col, n := range counts[k] {
			if n == 0 {
				continue
			}
			when := c.From.Add(time.Duration(col) * span).UTC().Format("2006-01-02 15:04")
			r.Cells = append(r.Cells, chartCell{X: col * cellWidth, Count: n,
				Opacity: strconv.FormatFloat(0.2+0.8*float64(n)/float64(busiest), 'f', 2, 64), When: when})
		}
		c.Rows = append(c.Rows, r)
	}
	c.Width, c.Height = chartColumns*cellWidth, len(c.Rows)*rowHeight
	return c
}

// roundSpan names a column's span for people.
func roundSpan(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return d.Round(time.Minute).String()
	case d < 48*time.Hour:
		return d.Round(time.Hour).String()
	}
	return strconv.Itoa(int(d.Hours()/24+0.5)) + " days"
}

func itoa(n int) string { return strconv.Itoa(n) }

// funcs are the templates' helpers; none makes HTML from data.
var funcs = template.FuncMap{
	"itoa": itoa,
	"short": func(h string) string {
		if len(h) > 12 {
			return h[:12]
		}
		return h
	},
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"age": func(t time.Time) string {
		d := time.Since(t)
		switch {
		case d < time.Minute:
			return "just now"
		case d < time.Hour:
			return strconv.Itoa(int(d.Minutes())) + " min"
		case d < 48*time.Hour:
			return strconv.Itoa(int(d.Hours())) + " h"
		}
		return strconv.Itoa(int(d.Hours()/24)) + " days"
	},
	"len0": func(s []string) int { return len(s) },
	"add":  func(a, b int) int { return a + b },
	"sub":  func(a, b int) int { return a - b },
}
