#!/usr/bin/env python3
# Helper of exporter.sh: open N connections from SRC to 127.0.0.1:PORT, each
# with half a request (no blank line), as a client that holds them idle.
# After a moment, those the server closed at once were refused; READY gets
# "held H refused R". Then wait (at most MAXWAIT s) for the server to close
# the held ones and print "held H refused R closed C first F last L" (F, L:
# seconds from each one's last byte sent to its close; -1 if none).
# usage: exporter-hold.py PORT SRC N READY MAXWAIT
import os, resource, select, socket, sys, time

port, src, n, ready, maxwait = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = min(hard, n + 64) if hard != resource.RLIM_INFINITY else n + 64
if soft != resource.RLIM_INFINITY and soft < want:
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
socks, refused, errs = [], 0, {}
for _ in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        s.settimeout(None)  # blocking: MSG_DONTWAIT below then says "nothing yet"
        socks.append((s, time.monotonic()))
    except OSError as e:  # counted as refused; which error, for the report
        refused += 1
        errs[e.errno] = errs.get(e.errno, 0) + 1
        s.close()
time.sleep(1.0)


def closed(s):
    try:
        return s.recv(1, socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


held = []
for s, t in socks:
    if closed(s):
        refused += 1
        s.close()
    else:
        held.append((s, t))
with open(ready + ".tmp", "w") as f:
    f.write("held %d refused %d\n" % (len(held), refused))
os.rename(ready + ".tmp", ready)
end = time.monotonic() + maxwait
times, open_ = [], {s.fileno(): (s, t) for s, t in held}
poll = select.poll()
for fd in open_:
    poll.register(fd, select.POLLIN)
while open_ and time.monotonic() < end:
    for fd, _ in poll.poll(max(0, int((end - time.monotonic()) * 1000))):
        poll.unregister(fd)
        s, t = open_[fd]
        if closed(s):
            times.append(time.monotonic() - t)
            s.close()
            del open_[fd]
print("held %d refused %d closed %d first %.1f last %.1f" % (len(held), refused, len(times),
      min(times) if times else -1, max(times) if times else -1))
if errs:  # on stderr: not refusals by the server but failures to connect
    print("connect errors: " + ", ".join("%s x%d" % (os.strerror(k) if k else "timeout", v)
                                       for k, v in sorted(errs.items(), key=lambda kv: kv[0] or 0)),
          file=sys.stderr)
