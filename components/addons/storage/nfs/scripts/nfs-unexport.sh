# --- gpukit NFS server removed from the stack: stop exporting gpukit's directories. The data stays on
# the host (delete /srv/gpukit-nfs yourself once it is no longer needed), and so does the NFS server
# package, which other exports on the host may use.
# Inputs (set above by the renderer): EXPORTS_FILE.
ROOT="${GPUKIT_ROOT:-}"  # empty on a real host; a temporary root in gpukit's tests

rm -f "$ROOT$EXPORTS_FILE"
if command -v exportfs > /dev/null 2>&1; then
  exportfs -ra
fi
