"""A static HTTP server that answers "Range: bytes=N-" like a real mirror (206 Partial Content).

    python3 range_server.py PORT DIRECTORY

Every request is logged to stderr as `GET /path range=<header or -> status=<code>`, which the
scenario reads from the journal to count downloads and see resumed ones.
"""
import http.server
import os
import re
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    def send_head(self):
        wanted = self.headers.get("Range")
        path = self.translate_path(self.path)
        match = re.match(r"^bytes=(\d+)-$", wanted or "")
        if not match or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        start = int(match.group(1))
        if start >= size:
            self.send_error(416, "Requested Range Not Satisfiable")
            return None
        handle = open(path, "rb")
        handle.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size))
        self.send_header("Content-Length", str(size - start))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        return handle

    def log_request(self, code="-", size="-"):
        sys.stderr.write("%s %s range=%s status=%s\n" % (
            self.command, self.path, self.headers.get("Range") or "-", getattr(code, "value", code)))


if __name__ == "__main__":
    os.chdir(sys.argv[2])
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
