# Writing and removing the installer's files so that a second run changes nothing: a file is
# replaced only when its content differs (its mtime and its folder's stay as they were otherwise).
# Sourced by scripts/install.sh; `root` is the staging folder ('' on the box itself), `scratch` a
# temporary folder of this run.

say() { printf '[install] %s\n' "$*"; }
die() {
  echo "install.sh: $*" >&2
  exit 1
}

# put DEST MODE: standard input becomes DEST (a path on the box, staged under $root). Returns 0
# when DEST changed, 1 when it already had that content. Text is read and compared in the shell
# (no cat, no cmp: forks are most of a run's time); input holding a NUL byte goes through a file.
put() {
  local dest="$root$1" mode=$2 content old
  if IFS= read -r -d '' content; then
    { printf '%s\0' "$content" && cat; } > "$scratch/put"
    put_copy "$scratch/put" "$1" "$mode"
    return
  fi
  # read fails at the end of a file without a NUL: then $old is all of it.
  if [ -f "$dest" ] && [ -r "$dest" ] && ! IFS= read -r -d '' old < "$dest" && [ "$old" = "$content" ]; then
    chmod "$mode" "$dest"
    return 1
  fi
  [ -d "${dest%/*}" ] || mkdir -p "${dest%/*}"
  printf '%s' "$content" > "$dest.nestbox-new"
  chmod "$mode" "$dest.nestbox-new"
  mv -f "$dest.nestbox-new" "$dest"
  return 0
}

# put_copy SOURCE DEST MODE [HAS_MODE]: a file's content to DEST; same answer as put. HAS_MODE:
# DEST's mode when the caller knows it (then a file already right is left without a chmod).
put_copy() {
  local source="$1" dest="$root$2" mode=$3 has_mode=${4:-}
  if [ -e "$dest" ] && cmp -s "$source" "$dest" 2> /dev/null; then
    # Same mode again changes no mtime.
    [ "$has_mode" = "$mode" ] || chmod "$mode" "$dest"
    return 1
  fi
  # Beside the destination first, then renamed: a reader sees the old file or the new one.
  [ -d "${dest%/*}" ] || mkdir -p "${dest%/*}"
  install -m "$mode" "$source" "$dest.nestbox-new"
  mv -f "$dest.nestbox-new" "$dest"
  return 0
}

# unput DEST...: removes files the installer wrote; says which.
unput() {
  local path
  for path in "$@"; do
    if [ -e "$root$path" ] || [ -L "$root$path" ]; then
      rm -f "$root$path"
      say "removed $root$path"
    fi
  done
}

# The block of lines the installer owns inside a file that is not its own (the boot config,
# dhcpcd.conf): between these markers, the rest of the file untouched.
BLOCK_BEGIN='# nestbox begin'
BLOCK_END='# nestbox end'

# put_block FILE: standard input becomes the block in FILE (replaced where it is, else appended).
# Returns 0 when FILE changed.
put_block() {
  local file="$1" mode
  mode=$(stat -c %a "$root$file")
  BLOCK_BODY=$(cat)
  export BLOCK_BODY
  if grep -qxF "$BLOCK_BEGIN" "$root$file"; then
    awk -v begin="$BLOCK_BEGIN" -v end="$BLOCK_END" '
      $0 == begin { print begin; print ENVIRON["BLOCK_BODY"]; skipping = 1; next }
      skipping && $0 == end { print end; skipping = 0; next }
      !skipping { print }
    ' "$root$file" | put "$file" "$mode"
  else
    {
      cat "$root$file"
      # A file without a final newline gets one, or the block would join its last line.
      [ -z "$(tail -c1 "$root$file")" ] || printf '\n'
      printf '%s\n%s\n%s\n' "$BLOCK_BEGIN" "$BLOCK_BODY" "$BLOCK_END"
    } | put "$file" "$mode"
  fi
}

# remove_block FILE: takes the block out again (the file as it was before the installer).
remove_block() {
  local file="$1"
  [ -f "$root$file" ] && grep -qxF "$BLOCK_BEGIN" "$root$file" || return 0
  awk -v begin="$BLOCK_BEGIN" -v end="$BLOCK_END" '
    $0 == begin { skipping = 1; next }
    skipping && $0 == end { skipping = 0; next }
    !skipping { print }
  ' "$root$file" | put "$file" "$(stat -c %a "$root$file")" || true
  say "removed the nestbox block from $root$file"
}

# sync_tree SOURCE DEST: DEST (a folder on the box) holds exactly SOURCE's files, with their
# modes. Returns 0 when anything changed.
sync_tree() {
  local source="$1" dest="$2" changed=1 mode file
  local -A has_mode=()
  while IFS=' ' read -r -d '' mode file; do
    has_mode[$file]=$mode
  done < <(find "$root$dest" -type f -printf '%m %P\0' 2> /dev/null)
  while IFS=' ' read -r -d '' mode file; do
    if put_copy "$source/$file" "$dest/$file" "$mode" "${has_mode[$file]:-}"; then changed=0; fi
  done < <(find "$source" -type f -printf '%m %P\0' | sort -z)
  for file in "${!has_mode[@]}"; do
    [ -f "$source/$file" ] || { rm -f "$root$dest/$file" && changed=0; }
  done
  return "$changed"
}
