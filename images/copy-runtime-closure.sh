#!/bin/sh
# Copies programs and every shared library they load (as ldd resolves them, the dynamic
# loader included) into DEST, keeping their paths, so that an image FROM scratch can run
# them. Used by Containerfile.operator's first stage.
#   copy-runtime-closure.sh DEST PROGRAM...
set -eu
dest=$1
shift
for program in "$@"; do
  for file in "$program" $(ldd "$program" | awk '/=> \//{print $3} /^\t\//{print $1}'); do
    mkdir -p "$dest$(dirname "$file")"
    # -L: the library itself, not its symlink; the name ldd printed is the one the loader asks for.
    cp -L "$file" "$dest$file"
  done
done
# ldd names /lib and /lib64, which Debian makes links to usr/lib and usr/lib64 (usrmerge):
# make the same links, so that both spellings reach the one copy.
for link in lib lib64; do
  [ -L "/$link" ] || continue
  if [ -d "$dest/$link" ]; then
    mkdir -p "$dest/usr/$link"
    cp -a "$dest/$link/." "$dest/usr/$link/"
    rm -r "${dest:?}/$link"
  fi
  ln -s "usr/$link" "$dest/$link"
done
