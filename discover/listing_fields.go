package discover

import (
	"bytes"
	"strings"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// ListingFields reads what an agent's skills listing shows of a SKILL.md:
// its name, description and when_to_use, exactly as [Parse] reads them. A
// frontmatter made only of one-line "key: value" pairs whose values YAML
// reads as the same plain strings (what nearly every SKILL.md holds) is
// read without a YAML parser: measuring a target of a thousand skills
// otherwise spends most of its time there. Anything else goes through
// Parse.
func ListingFields(data []byte) (name, description, whenToUse string, err error) {
	if n, d, w, ok := plainListing(data); ok {
		return n, d, w, nil
	}
	sf, err := Parse(data)
	if err != nil {
		return "", "", "", err
	}
	return sf.Frontmatter.Name, sf.Frontmatter.Description, sf.Frontmatter.WhenToUse, nil
}

// plainListing is ListingFields' reading without YAML; ok is false for
// anything it cannot vouch YAML reads the same way.
func plainListing(data []byte) (name, description, whenToUse string, ok bool) {
	if len(data) > MaxFileSize || checkUTF8(bytes.TrimPrefix(data, skillmd.BOM)) != nil {
		return "", "", "", false
	}
	split, err := skillmd.Cut(data)
	if err != nil {
		return "", "", "", false
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(split.YAML), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			continue
		}
		key, value, found := strings.Cut(line, ": ")
		if !found || !plainKey(key) || seen[key] || !plainValue(value) {
			return "", "", "", false
		}
		seen[key] = true
		value = strings.TrimRight(value, " ")
		switch key {
		case "name":
			name = value
		case "description":
			description = value
		case "when_to_use":
			whenToUse = value
		}
	}
	return name, description, whenToUse, len(seen) > 0
}

// plainKey reports a key Parse takes as it is spelled: lower case letters,
// digits, '-' and '_', and none of the spellings it reads as another key.
func plainKey(key string) bool {
	if key == "" || key[0] < 'a' || key[0] > 'z' {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	if _, respelled := keySpellings[key]; respelled {
		return false
	}
	if k := kebab(key); k != key && caseStyled[k] {
		return false
	}
	return true
}

// plainValue reports a one-line value that YAML reads as exactly its text
// (trailing spaces aside): no indicator first, no ": " or " #" inside, no
// tab, and not a word YAML reads as null.
func plainValue(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], "-?:,[]{}#&*!|>'\"%@` ") {
		return false
	}
	if strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(strings.TrimRight(v, " "), ":") || strings.ContainsAny(v, "\t") {
		return false
	}
	switch v {
	case "~", "null", "Null", "NULL":
		return false
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f || r == 0xfeff {
			return false
		}
	}
	return true
}
