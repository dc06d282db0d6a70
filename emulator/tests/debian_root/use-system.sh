#!/bin/sh
# Run inside a Debian system bootstrapped under endgate (emulator/tests/debian_root.rs), as its
# root user would: installs the packages scripts/fetch-debian-root.sh left in /root/debs with
# dpkg, asks apt about them, runs perl and python3. Prints one line per check; dpkg's own
# output goes to /root/dpkg.log. Exits at the first failure.
set -eu
cd /root/debs
log=/root/dpkg.log
echo "arch: $(dpkg --print-architecture)"
dpkg -i hello_*.deb less_*.deb >>"$log" 2>&1
echo "hello: $(hello)"
echo "less: $(printf 'one\ntwo\n' | less | tr '\n' ' ')"
echo "apt-cache: $(apt-cache policy hello | sed -n 's/^  Installed: //p')"
perl -e 'my %h = map { $_ => $_ * $_ } 1 .. 5; print "perl: ", join(",", map { $h{$_} } sort keys %h), " ", (pack("L", 1) eq pack("N", 1) ? "big" : "little"), "-endian\n"'
# python3 and what it needs: the libraries first, then python3-minimal, then python3 (each
# pre-depends on the one before it, so one dpkg -i of them all refuses the last two).
set --
for deb in *.deb; do
  case $deb in hello_*|less_*|python3_*|python3-minimal_*) ;; *) set -- "$@" "$deb" ;; esac
done
dpkg -i "$@" >>"$log" 2>&1
dpkg -i python3-minimal_*.deb >>"$log" 2>&1
dpkg -i python3_*.deb >>"$log" 2>&1
python3 -c '
import hashlib, json, sqlite3, sys
db = sqlite3.connect(":memory:")
print("python3:", sys.version_info[:2], sys.byteorder, json.dumps({"n": db.execute("select 6 * 7").fetchone()[0]}),
      hashlib.sha256(b"endgate").hexdigest()[:16])'
echo "audit: [$(dpkg --audit)]"
echo "not installed: [$(dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | grep -v '^ii ' || true)]"
