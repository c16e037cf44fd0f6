#!/usr/bin/env bash
# Fetches the public PyTorch profiler (Kineto) traces listed in kineto_corpus.tsv (name,
# repository, commit, path, archive member, bytes) into a cache folder that git ignores
# (default results/kineto-corpus), one file per trace named <name>.json or <name>.json.gz.
# Each file is read at its listed commit from a local mirror of its repository when there is one
# ($T3SIM_MIRROR/<owner>+<name>/repo, a bare git directory; default /work/.mirror), else from a
# blob-less clone made in the cache (needs network). Files already present with the listed size
# are kept. Usage: traces/corpus/fetch_corpus.sh [CACHE_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
list=$here/kineto_corpus.tsv
cache=${1:-$root/results/kineto-corpus}
mirror=${T3SIM_MIRROR:-/work/.mirror}
mkdir -p "$cache/repos"

gitdir_of() { # owner/name -> a git directory holding its history
  local repo=$1 local_dir="$mirror/${1/\//+}/repo"
  if [[ -d "$local_dir" ]]; then
    echo "$local_dir"
    return
  fi
  local clone="$cache/repos/${repo/\//+}.git"
  if [[ ! -d "$clone" ]]; then
    git clone --quiet --bare --filter=blob:none "https://github.com/$repo.git" "$clone" >&2
  fi
  echo "$clone"
}

fetched=0 kept=0 failed=0
while IFS=$'\t' read -r name repo commit path member bytes; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if [[ "$member" != "-" ]]; then
    out=$cache/$name.json
  elif [[ "$path" == *.gz ]]; then
    out=$cache/$name.json.gz
  else
    out=$cache/$name.json
  fi
  if [[ -f "$out" && "$(stat -c %s "$out")" == "$bytes" ]]; then
    kept=$((kept + 1))
    continue
  fi
  gitdir=$(gitdir_of "$repo") || { echo "not fetched: $name ($repo unavailable)" >&2; failed=$((failed + 1)); continue; }
  tmp=$out.part
  if [[ "$member" == "-" ]]; then
    ok=0
    git --git-dir="$gitdir" cat-file -p "$commit:$path" >"$tmp" 2>/dev/null && ok=1
  else
    ok=0
    git --git-dir="$gitdir" cat-file -p "$commit:$path" 2>/dev/null | tar -xzO -f - "$member" >"$tmp" 2>/dev/null && ok=1
  fi
  if [[ $ok == 1 && "$(stat -c %s "$tmp")" == "$bytes" ]]; then
    mv "$tmp" "$out"
    fetched=$((fetched + 1))
  else
    rm -f "$tmp"
    echo "not fetched: $name ($repo $commit:$path${member:+ $member}: missing or not $bytes bytes)" >&2
    failed=$((failed + 1))
  fi
done <"$list"
echo "kineto corpus in $cache: $fetched fetched, $kept already there, $failed failed"
[[ $failed == 0 ]]
