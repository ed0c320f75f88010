"""Test shim: sits between the SDK client and the recorder and copies, byte
for byte, what the client sent and what it received.

usage: tap.py SENT_FILE RECEIVED_FILE -- COMMAND ARGS...
"""

import os
import subprocess
import sys
import threading


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def pump(src_fd, dst_fd, copy_path, close_dst):
    with open(copy_path, "wb") as copy:
        while True:
            chunk = os.read(src_fd, 65536)
            if not chunk:
                break
            copy.write(chunk)
            copy.flush()
            try:
                write_all(dst_fd, chunk)
            except BrokenPipeError:
                pass
    if close_dst:
        os.close(dst_fd)


def main():
    sent, received, sep, *command = sys.argv[1:]
    assert sep == "--", "usage: tap.py SENT RECEIVED -- COMMAND..."
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    with open(os.path.join(os.path.dirname(sent), "recorder.pid"), "w") as pid_file:
        pid_file.write(str(child.pid))
    up = threading.Thread(target=pump, args=(0, child.stdin.fileno(), sent, True), daemon=True)
    down = threading.Thread(target=pump, args=(child.stdout.fileno(), 1, received, False))
    up.start()
    down.start()
    down.join()
    code = child.wait()
    open(os.path.join(os.path.dirname(sent), "recorder.done"), "w").close()
    sys.exit(code)


if __name__ == "__main__":
    main()
