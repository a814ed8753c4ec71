#!/usr/bin/env python3
"""Test-only static HTTP mirror for a sandbox node, on loopback: Python's http.server, plus a
record of how a client downloads.

    mirror.py --root DIR --port N --record FILE --hold-prefix /vllm-mirror/ --hold 8 --watch DIR

Every GET below --hold-prefix (SHA256SUMS excepted) sends the first half of the file, then holds
for --hold seconds before the rest. While it holds, it appends one JSON line to --record: the
path, how many such downloads were in flight at that moment, and the names in --watch (where
the client should be staging its partial files). The access log goes to stderr as http.server
writes it. Standard library only.
"""
import argparse
import json
import os
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {'in_flight': 0}


class Handler(SimpleHTTPRequestHandler):
    options = None

    def _held(self):
        path = self.path.split('?', 1)[0]
        return path.startswith(self.options.hold_prefix) and not path.endswith('/SHA256SUMS')

    def copyfile(self, source, outputfile):
        if not self._held():
            return super().copyfile(source, outputfile)
        data = source.read()
        with LOCK:
            STATE['in_flight'] += 1
        try:
            outputfile.write(data[:len(data) // 2])
            outputfile.flush()
            time.sleep(self.options.hold / 2)
            watch = self.options.watch
            staged = sorted(os.listdir(watch)) if watch and os.path.isdir(watch) else None
            with LOCK:
                line = {'path': self.path, 'in_flight': STATE['in_flight'], 'staged': staged}
                with open(self.options.record, 'a') as handle:
                    handle.write(json.dumps(line) + '\n')
            time.sleep(self.options.hold / 2)
            outputfile.write(data[len(data) // 2:])
        finally:
            with LOCK:
                STATE['in_flight'] -= 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--root', required=True)
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--record', required=True)
    parser.add_argument('--hold-prefix', default='/nothing-held/')
    parser.add_argument('--hold', type=float, default=0.0)
    parser.add_argument('--watch', default='')
    options = parser.parse_args()
    Handler.options = options
    server = ThreadingHTTPServer(('127.0.0.1', options.port), partial(Handler, directory=options.root))
    server.serve_forever()


if __name__ == '__main__':
    main()
