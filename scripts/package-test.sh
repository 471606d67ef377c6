#!/usr/bin/env bash
# package-test.sh: builds the .deb of this checkout (a linux/amd64 snapshot
# made by scripts/release.sh, as a release makes it), installs it with
# dpkg, checks what it installed from the installed paths (kproduce
# --version names the version and commit, man kproduce shows the page, the
# bash completion completes), then removes it and checks that nothing is
# left. Needs root and Debian's dpkg; installs man-db and bash-completion
# when they are missing, and removes them again at the end. CI runs it
# before the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

fail() { echo "package test: FAIL: $*" >&2; exit 1; }
step() { echo "package test: $*" >&2; }

[[ $(id -u) == 0 ]] || fail "needs root (it installs the package with dpkg)"
command -v dpkg >/dev/null || fail "needs dpkg (a Debian or Ubuntu machine)"
[[ $(dpkg --print-architecture) == amd64 ]] || fail "builds the linux/amd64 package: this machine is $(dpkg --print-architecture)"
if dpkg -s kproduce >/dev/null 2>&1; then
  fail "a kproduce package is installed already: remove it first (dpkg -r kproduce)"
fi
out=$(mktemp -d)
installed=false
missing=() # the helpers installed here for the checks
cleanup() {
  if $installed; then dpkg -r kproduce >/dev/null 2>&1 || true; fi
  if [[ ${#missing[@]} -gt 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${missing[@]}" >/dev/null 2>&1 || true
  fi
  rm -rf "$out"
}
trap cleanup EXIT

# The helpers the checks need, removed again by cleanup when installed here.
command -v man >/dev/null || missing+=(man-db)
[[ -f /usr/share/bash-completion/bash_completion ]] || missing+=(bash-completion)
if [[ ${#missing[@]} -gt 0 ]]; then
  step "installing ${missing[*]} (removed at the end)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null
fi

step "building the .deb"
scripts/release.sh --snapshot --targets linux/amd64 --formats deb --out "$out"
debs=("$out"/*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || fail "expected one .deb in $out: $(ls "$out")"
deb=${debs[0]}
(cd "$out" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the .deb"

step "installing $(basename "$deb")"
dpkg -i "$deb" >/dev/null
installed=true
files=$(dpkg -L kproduce)
for path in /usr/bin/kproduce /usr/share/man/man1/kproduce.1.gz /usr/share/man/man1/kproduce-check.1.gz \
  /usr/share/bash-completion/completions/kproduce /usr/share/zsh/vendor-completions/_kproduce \
  /usr/share/fish/vendor_completions.d/kproduce.fish /usr/share/doc/kproduce/README.md \
  /usr/share/doc/kproduce/CHANGELOG.md /usr/share/doc/kproduce/copyright /usr/share/doc/kproduce/docs/formats.md; do
  grep -qxF "$path" <<<"$files" || fail "the package does not install $path"
  [[ -e $path ]] || fail "$path is listed but not on disk"
done

step "kproduce --version"
commit=$(git rev-parse HEAD)
version=$(/usr/bin/kproduce --version)
echo "$version" | sed 's/^/  /' >&2
grep -qE '^kproduce v[0-9]+\.[0-9]+\.[0-9]+-snapshot\.g[0-9a-f]{7}$' <<<"$version" || fail "--version does not name the snapshot version"
grep -qE "^commit  $commit( \(modified\))?$" <<<"$version" || fail "--version does not name the commit $commit"
grep -qE '^date    [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$' <<<"$version" || fail "--version does not name the commit's date"
[[ $(/usr/bin/kproduce version -o json) == *"\"commit\":\"$commit\""* ]] || fail "kproduce version -o json does not name the commit"

step "man kproduce"
page=$(env MANPAGER=cat MANWIDTH=80 man kproduce 2>&1) || fail "man kproduce: $page"
grep -q 'kproduce - Produce records to Kafka from stdin or files' <<<"$page" || fail "man kproduce does not show kproduce's page: $(head -5 <<<"$page")"
grep -q -- '--allow-auto-topic-creation' <<<"$page" || fail "man kproduce does not list the options"
page=$(env MANPAGER=cat man kproduce-check 2>&1) || fail "man kproduce-check: $page"
grep -q 'kproduce-check' <<<"$page" || fail "man kproduce-check does not show the check page"

step "bash completion"
# bash-completion loads a command's completion from its completions
# directory on first use, as an interactive shell does.
got=$(bash --norc --noprofile -c '
  source /usr/share/bash-completion/bash_completion
  if declare -F _comp_load >/dev/null; then _comp_load kproduce; else __load_completion kproduce; fi
  spec=$(complete -p kproduce) || exit 1
  fn=${spec##*-F }; fn=${fn%% *}
  COMP_WORDS=(kproduce --compression "") COMP_CWORD=2 COMP_LINE="kproduce --compression " COMP_POINT=23
  "$fn" kproduce "" --compression
  printf "%s\n" "${COMPREPLY[@]}"' 2>"$out/completion.err") || fail "bash-completion found no completion for kproduce: $(cat "$out/completion.err")"
for codec in none gzip snappy lz4 zstd; do
  grep -qx "$codec" <<<"$got" || fail "completing kproduce --compression does not offer $codec: $got $(cat "$out/completion.err")"
done

step "removing the package"
dpkg -r kproduce >/dev/null
installed=false
for path in /usr/bin/kproduce /usr/share/man/man1/kproduce.1.gz /usr/share/bash-completion/completions/kproduce /usr/share/doc/kproduce; do
  [[ ! -e $path ]] || fail "$path is still there after dpkg -r"
done
step "ok: $(basename "$deb") installs, works from its installed paths and removes cleanly"
