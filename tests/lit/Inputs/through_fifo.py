"""Usage: through_fifo.py FIFO -- COMMAND...

Makes FIFO, reads it on a thread while COMMAND runs (COMMAND writes to it,
e.g. with -o FIFO), then prints what came through and whether FIFO is still
a FIFO. Exits with COMMAND's status."""
import os
import stat
import subprocess
import sys
import threading

fifo = sys.argv[1]
cmd = sys.argv[sys.argv.index("--") + 1:]
os.mkfifo(fifo)
got = []
reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
reader.start()
rc = subprocess.run(cmd).returncode
if reader.is_alive():  # COMMAND never opened it: let the reader go
    # Without blocking: the reader may finish between is_alive() and here,
    # and a blocking open would then wait for a reader forever.
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: no reader left
        pass
reader.join()
data = got[0] if got else b""
print(f"read {len(data)} bytes; first line: {data.splitlines()[0].decode() if data else ''}")
print("still a fifo" if stat.S_ISFIFO(os.lstat(fifo).st_mode) else "REPLACED")
sys.exit(rc)
