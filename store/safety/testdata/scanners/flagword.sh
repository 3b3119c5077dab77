#!/bin/sh
# A scanner of our own for the tests: flags every line holding the word
# "forbidden" in the folder it is given ($1; the version is $2), and writes
# the findings in skillstore's external scanner shape.
dir="$1"
cd "$dir" || exit 2
printf '{"findings":['
sep=''
grep -rn forbidden . | while IFS=: read -r file line rest; do
	printf '%s{"rule":"word","level":"high","file":"%s","line":%s,"message":"the word forbidden (version %s)"}' "$sep" "${file#./}" "$line" "$2"
	sep=','
done
printf ']}\n'
