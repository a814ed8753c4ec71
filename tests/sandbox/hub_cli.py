#!/usr/bin/env python3
"""Test-only stand-in for the model hubs' download CLIs: `hf download` (Hugging Face) and
`modelscope download`, installed under those names on a sandbox node.

    hf download REPO --local-dir DIR [--revision REV]
    modelscope download --model REPO --local_dir DIR [--revision REV]

Both fetch from a static mirror tree, which any HTTP server can serve:

    <endpoint>/api/models/<repo>/revision/<rev>     JSON {"siblings": [{"rfilename": NAME}, ...]}
    <endpoint>/<repo>/resolve/<rev>/<NAME>          the files

The endpoint is HF_ENDPOINT for hf (huggingface_hub constants.py); for modelscope it is
'https://' + MODELSCOPE_DOMAIN, as the ModelScope SDK builds it (modelscope/hub/utils/utils.py,
MODELSCOPE_URL_SCHEME) - a domain with a scheme gives the same broken address. Downloads go
through a cache (HF_HOME or MODELSCOPE_CACHE, default ~/.cache/hub-standin/<cli>/<repo>/<rev>)
and are copied into DIR. With HF_HUB_OFFLINE=1 hf fetches nothing: the cache must hold the
revision, otherwise it fails like the real one; modelscope has no offline mode (the SDK reads no
offline variable). The mirror layout is Hugging Face's for both: ModelScope's own API is not
modelled (assumed). Every call appends one JSON line (argv, the endpoint,
token and offline variables - the token only as set/unset) to HUB_STANDIN_LOG when set.
Standard library only.
"""
import argparse
import json
import os
import shutil
import sys
import urllib.error
import urllib.request


def _endpoint(cli, env):
    if cli == 'hf':
        value = env.get('HF_ENDPOINT') or 'https://huggingface.co'
    else:
        value = 'https://' + (env.get('MODELSCOPE_DOMAIN') or 'www.modelscope.cn')
    return value.rstrip('/')


def _offline(cli, env):
    return cli == 'hf' and env.get('HF_HUB_OFFLINE', '').lower() in ('1', 'true', 'yes', 'on')


def _cache(cli, env, repo, revision):
    base = env.get('HF_HOME' if cli == 'hf' else 'MODELSCOPE_CACHE') or os.path.join(
        os.path.expanduser('~'), '.cache', 'hub-standin', cli)
    return os.path.join(base, repo, revision)


def parse(cli, argv):
    parser = argparse.ArgumentParser(prog=cli)
    sub = parser.add_subparsers(dest='command', required=True)
    download = sub.add_parser('download')
    if cli == 'hf':
        download.add_argument('repo')
        download.add_argument('--local-dir', dest='local_dir', required=True)
    else:
        download.add_argument('--model', dest='repo', required=True)
        download.add_argument('--local_dir', dest='local_dir', required=True)
    download.add_argument('--revision', default='')
    return parser.parse_args(argv)


def _get(url, token):
    request = urllib.request.Request(url)
    if token:
        request.add_header('Authorization', 'Bearer %s' % token)
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def download(cli, args, env):
    revision = args.revision or ('main' if cli == 'hf' else 'master')
    cache = _cache(cli, env, args.repo, revision)
    complete = os.path.join(cache, '.complete')
    if _offline(cli, env):
        if not os.path.exists(complete):
            raise RuntimeError('Cannot find the requested files in the local cache and outgoing traffic has been '
                               'disabled. To enable model look-ups and downloads online, set HF_HUB_OFFLINE=0 '
                               'as environment variable.')
    else:
        token = env.get('HF_TOKEN' if cli == 'hf' else 'MODELSCOPE_API_TOKEN', '')
        base = _endpoint(cli, env)
        listing = json.loads(_get('%s/api/models/%s/revision/%s' % (base, args.repo, revision), token))
        names = [s['rfilename'] for s in listing.get('siblings', [])]
        for name in names:
            if name.startswith('/') or '..' in name.split('/'):
                raise RuntimeError('refusing file name %r' % name)
            target = os.path.join(cache, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target + '.part', 'wb') as handle:
                handle.write(_get('%s/%s/resolve/%s/%s' % (base, args.repo, revision, name), token))
            os.replace(target + '.part', target)
        with open(complete, 'w') as handle:
            handle.write('\n'.join(names) + '\n')
    with open(complete) as handle:
        names = [line for line in handle.read().splitlines() if line]
    for name in names:
        target = os.path.join(args.local_dir, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(cache, name), target)
    return args.local_dir


def main(argv=None, env=None, cli=None):
    argv = sys.argv[1:] if argv is None else argv
    env = os.environ if env is None else env
    cli = cli or ('modelscope' if 'modelscope' in os.path.basename(sys.argv[0]) else 'hf')
    args = parse(cli, argv)
    log = env.get('HUB_STANDIN_LOG')
    if log:
        with open(log, 'a') as handle:
            handle.write(json.dumps({'cli': cli, 'argv': argv, 'endpoint': _endpoint(cli, env),
                                     'offline': _offline(cli, env),
                                     'token': bool(env.get('HF_TOKEN' if cli == 'hf' else 'MODELSCOPE_API_TOKEN'))})
                         + '\n')
    try:
        print(download(cli, args, env))
    except (RuntimeError, urllib.error.URLError, OSError, ValueError) as exc:
        sys.stderr.write('%s: error: %s\n' % (cli, exc))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
