# Sourced by the fetch scripts: finds the Debian mirror the machine's apt sources already use
# (deb822 /etc/apt/sources.list.d/*.sources or classic *.list), so no host name is written
# into this repository. `debian_mirror SUITE` prints "URI [SIGNED-BY]" for the first enabled
# `deb` source that serves SUITE (SIGNED-BY only when it is a keyring file's absolute path),
# or nothing when there is none.
mirror_deb822() {
  local want=$1; shift
  awk -v want="$want" '
    function flush() {
      if (!done && enabled != "no" && (" " types " ") ~ / deb / && (" " suites " ") ~ (" " want " ") && uri != "") {
        print uri, (signed ~ /^\// ? signed : ""); done = 1
      }
      types = suites = uri = signed = enabled = ""
    }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^[A-Za-z][A-Za-z0-9-]*:/ {
      key = tolower($0); sub(/:.*/, "", key)
      val = $0; sub(/^[^:]*:[ \t]*/, "", val); sub(/[ \t]+$/, "", val)
      if (key == "types") types = val
      else if (key == "suites") suites = val
      else if (key == "uris") { split(val, u, /[ \t]+/); uri = u[1] }
      else if (key == "signed-by") signed = val
      else if (key == "enabled") enabled = tolower(val)
    }
    END { flush() }' "$@"
}
mirror_list() {
  local want=$1; shift
  awk -v want="$want" '
    !done && $1 == "deb" {
      signed = ""
      line = $0; sub(/^[ \t]*deb[ \t]+/, "", line)
      if (line ~ /^\[/) {
        opts = line; sub(/\].*/, "", opts); sub(/^\[/, "", opts)
        sub(/^\[[^]]*\][ \t]*/, "", line)
        n = split(opts, o, /[ \t]+/)
        for (i = 1; i <= n; i++) if (o[i] ~ /^signed-by=/) { signed = o[i]; sub(/^signed-by=/, "", signed) }
      }
      split(line, f, /[ \t]+/)
      if (f[2] == want) { print f[1], (signed ~ /^\// ? signed : ""); done = 1 }
    }' "$@"
}
debian_mirror() {
  local found="" f sources lists
  shopt -s nullglob
  sources=(/etc/apt/sources.list.d/*.sources)
  lists=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list)
  shopt -u nullglob
  for f in "${sources[@]}"; do
    [ -n "$found" ] || found=$(mirror_deb822 "$1" "$f")
  done
  for f in "${lists[@]}"; do
    [ -n "$found" ] || [ ! -f "$f" ] || found=$(mirror_list "$1" "$f")
  done
  [ -z "$found" ] || echo "$found"
}
