#!/bin/sh
# test-windows.sh [PKG[=REGEXP]...]: build the Windows (amd64) test
# binaries of the lock, atomic-file, safe-folder and name packages and of
# export's Windows tests (or of each PKG, running the tests REGEXP
# matches) and run them under wine, printing per package how many tests
# passed, failed and were skipped, and why each skipped. Wine and
# binutils-mingw-w64 come from Debian's packages (installed with apt-get
# when absent). The wine prefix is kept under
# $XDG_CACHE_HOME/skillstore-wine (WINEPREFIX to change it). Exit status 1
# if a test failed.
set -eu

GO=${GO:-go}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
pkgs=${*:-./internal/lockfile ./internal/atomicfile ./internal/safedir ./internal/skillfs
./reload=^(TestExecuteBitIsNotALocalEdit|TestExportOfFolderInUse|TestExportRefusesDeviceFileNames|TestLinkTargets|TestExportRecoversPendingSwitch)\$}
export WINEPREFIX="${WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/skillstore-wine}"
export WINEDEBUG="${WINEDEBUG:--all}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# need PACKAGE...: install Debian packages.
need() {
	apt_get="apt-get"
	[ "$(id -u)" = 0 ] || apt_get="sudo apt-get"
	echo "test-windows: installing $* from Debian's packages"
	DEBIAN_FRONTEND=noninteractive $apt_get install -y --no-install-recommends "$@" ||
		{ $apt_get update && DEBIAN_FRONTEND=noninteractive $apt_get install -y --no-install-recommends "$@"; }
}

# Debian's wine64 package puts the loader in /usr/lib/wine; the wine
# package adds the wine command.
find_wine() {
	for w in wine64 wine /usr/lib/wine/wine64; do
		if command -v "$w" >/dev/null 2>&1; then command -v "$w"; return 0; fi
	done
	return 1
}
wine=$(find_wine) || { need wine64; wine=$(find_wine); }
echo "test-windows: $("$wine" --version 2>/dev/null || echo wine), prefix $WINEPREFIX"

mkdir -p "$WINEPREFIX"
"$wine" wineboot --init >/dev/null 2>&1 || true
sys32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
	# Wine before 9 lacks it and Go's runtime will not start without it.
	command -v x86_64-w64-mingw32-ld >/dev/null 2>&1 || need binutils-mingw-w64-x86-64
	x86_64-w64-mingw32-as -o "$work/bcryptprimitives.o" testdata/wine/bcryptprimitives.s
	x86_64-w64-mingw32-ld -shared --entry DllMain --subsystem windows \
		-o "$sys32/bcryptprimitives.dll" "$work/bcryptprimitives.o" testdata/wine/bcryptprimitives.def
	echo "test-windows: added bcryptprimitives.dll (ProcessPrng) to the wine prefix"
fi

status=0
for arg in $pkgs; do
	pkg=${arg%%=*}
	run=.
	case $arg in *=*) run=${arg#*=} ;; esac
	dir=$($GO list -f '{{.Dir}}' "$pkg")
	name=$($GO list -f '{{.Name}}' "$pkg")
	base=$(basename "$dir")
	sed "s/^package PACKAGE\$/package $name/" testdata/wine/wine_deleteat.go.in >"$work/$base-wine.go"
	printf '{"Replace":{"%s":"%s"}}\n' "$dir/zz_wine_deleteat_test.go" "$work/$base-wine.go" >"$work/$base-overlay.json"
	GOOS=windows GOARCH=amd64 $GO test -c -overlay "$work/$base-overlay.json" -ldflags=-checklinkname=0 \
		-o "$work/$base.test.exe" "$pkg"
	code=0
	(cd "$work" && timeout 900 "$wine" "./$base.test.exe" -test.v -test.timeout 10m -test.run "$run") >"$work/$base.log" 2>&1 || code=$?
	pass=$(grep -c '^--- PASS' "$work/$base.log" || true)
	fail=$(grep -c '^--- FAIL' "$work/$base.log" || true)
	skip=$(grep -c '^--- SKIP' "$work/$base.log" || true)
	what=$pkg
	[ "$run" = . ] || what="$pkg (its Windows tests)"
	echo "$what under wine: $pass passed, $fail failed, $skip skipped"
	# Each skipped test or subtest with the reason it logged.
	awk '/^=== (RUN|CONT|NAME)/ { name = $3 }
	     /^ *[a-z_]+_test\.go:[0-9]+: / { line = $0; sub(/^ +/, "", line); msg[name] = line }
	     /^ *--- SKIP/ { print "  skipped " $3 ": " msg[$3] }' "$work/$base.log"
	if [ "$fail" -ne 0 ] || [ "$code" -ne 0 ]; then
		status=1
		grep -v '^=== ' "$work/$base.log" | grep -v '^--- \(PASS\|SKIP\)' | sed 's/^/  /'
	fi
done
exit $status
