"""The Grafana dashboard (module_utils/monitoring.py dashboard()).

Its JSON model is read back by Grafana's own Python SDK (grafana-foundation-sdk, generated from
Grafana's schema): every panel decodes to its panel type's options and every query to a
Prometheus query, unchanged. Its PromQL is checked by Prometheus's promtool, and the panels an
operator reads first are evaluated on synthetic series shaped like the exporters'.
"""
import json
import os
import subprocess

import pytest
import yaml
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.cog.plugins import register_default_plugins
from grafana_foundation_sdk.models import prometheus
from grafana_foundation_sdk.models.dashboard import Dashboard, RowPanel

from ansible_collections.ascend.vllm.plugins.module_utils import monitoring as mon

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
PROMTOOL = os.path.join(REPO, '.cache', 'prometheus', 'usr', 'bin', 'promtool')


def promtool(*args, cwd=None):
    if not os.access(PROMTOOL, os.X_OK):
        pytest.fail('%s is missing: run scripts/setup.sh' % PROMTOOL)
    return subprocess.run([PROMTOOL] + list(args), cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def panels(model):
    return [panel for panel in model['panels'] if panel['type'] != 'row']


def query(title, number=0):
    """A panel's query with the host variable set as Grafana would for one node."""
    panel = [p for p in panels(mon.dashboard()) if p['title'] == title][0]
    return panel['targets'][number]['expr'].replace('$host', 'a2-1')


def test_panels_an_operator_looks_for():
    titles = [panel['title'] for panel in panels(mon.dashboard())]
    assert titles == [
        'NPU health (1 healthy, 0 unhealthy)', 'NPU temperature', 'HBM used', 'AI core utilization',
        'Generated tokens per second', 'Time to first token, p95', 'End-to-end request latency, p95',
        'Requests running and waiting', 'KV cache used', 'Units active', 'Unit restarts in 15 minutes']
    model = mon.dashboard()
    assert [p['title'] for p in model['panels'] if p['type'] == 'row'] == [
        'NPUs (npu-exporter)', 'vLLM', 'Services (node_exporter)']
    assert len({p['id'] for p in model['panels']}) == len(model['panels'])
    assert all('{host=~"$host"' in expr or 'host=~"$host",' in expr for expr in mon.dashboard_queries(model))


def test_panels_do_not_overlap():
    cells = set()
    for panel in mon.dashboard()['panels']:
        grid = panel['gridPos']
        mine = {(x, y) for x in range(grid['x'], grid['x'] + grid['w']) for y in range(grid['y'], grid['y'] + grid['h'])}
        assert not cells & mine, panel['title']
        assert grid['x'] + grid['w'] <= 24
        cells |= mine


def test_grafanas_schema_reads_it_back_unchanged():
    register_default_plugins()
    model = mon.dashboard()
    decoded = Dashboard.from_json(json.loads(json.dumps(model)))
    again = json.loads(json.dumps(decoded, cls=JSONEncoder))
    assert again['schemaVersion'] == 39 and again['uid'] == 'ascend-vllm-fleet'
    assert [v['name'] for v in again['templating']['list']] == ['datasource', 'host']
    for mine, read, typed in zip(model['panels'], again['panels'], decoded.panels):
        assert read['type'] == mine['type'] and read['title'] == mine['title'] and read['gridPos'] == mine['gridPos']
        if mine['type'] == 'row':
            assert isinstance(typed, RowPanel)
            continue
        # A panel type the schema knows gets its own options class, not a plain dict.
        assert not isinstance(typed.options, dict), mine['type']
        assert read['fieldConfig']['defaults']['unit'] == mine['fieldConfig']['defaults']['unit']
        assert all(isinstance(target, prometheus.Dataquery) for target in typed.targets)
        assert [(t['refId'], t['expr'], t['legendFormat']) for t in read['targets']] == \
            [(t['refId'], t['expr'], t['legendFormat']) for t in mine['targets']]


def test_promtool_parses_every_query(tmp_path):
    exprs = [expr.replace('$host', '.+') for expr in mon.dashboard_queries(mon.dashboard())]
    rules = {'groups': [{'name': 'dashboard', 'rules': [
        {'record': 'dashboard:query_%d' % number, 'expr': expr} for number, expr in enumerate(exprs)]}]}
    (tmp_path / 'queries.yml').write_text(yaml.safe_dump(rules, sort_keys=False))
    run = promtool('check', 'rules', str(tmp_path / 'queries.yml'))
    assert run.returncode == 0, run.stdout + run.stderr
    assert 'SUCCESS: 12 rules found' in run.stdout


CHIP = 'host="a2-1", id="3", job="npu_exporter"'
VLLM = 'host="a2-1", vllm_instance="main", model_name="m", engine="0", job="vllm"'


def test_panels_show_the_node_from_exporter_series(tmp_path):
    series = [
        {'series': 'npu_chip_info_hbm_used_memory{%s}' % CHIP, 'values': '32768x10'},
        {'series': 'npu_chip_info_hbm_total_memory{%s}' % CHIP, 'values': '65536x10'},
        {'series': 'npu_chip_info_hbm_used_memory{host="a2-2", id="3", job="npu_exporter"}', 'values': '1x10'},
        {'series': 'npu_chip_info_hbm_total_memory{host="a2-2", id="3", job="npu_exporter"}', 'values': '2x10'},
        # 600 tokens a minute: 10 per second.
        {'series': 'vllm:generation_tokens_total{%s}' % VLLM, 'values': '0+600x10'},
        # Every request's first token within 0.1 s, none faster than 0.08 s.
        {'series': 'vllm:time_to_first_token_seconds_bucket{%s, le="0.08"}' % VLLM, 'values': '0x10'},
        {'series': 'vllm:time_to_first_token_seconds_bucket{%s, le="0.1"}' % VLLM, 'values': '0+60x10'},
        {'series': 'vllm:time_to_first_token_seconds_bucket{%s, le="+Inf"}' % VLLM, 'values': '0+60x10'},
        # Releases before 0.10 name the KV-cache gauge vllm:gpu_cache_usage_perc.
        {'series': 'vllm:gpu_cache_usage_perc{%s}' % VLLM, 'values': '0.25x10'},
    ]
    tests = [{'interval': '1m', 'input_series': series, 'promql_expr_test': [
        {'expr': query('HBM used'), 'eval_time': '5m',
         'exp_samples': [{'labels': '{host="a2-1", id="3", job="npu_exporter"}', 'value': 0.5}]},
        {'expr': query('Generated tokens per second'), 'eval_time': '5m',
         'exp_samples': [{'labels': '{host="a2-1", vllm_instance="main"}', 'value': 10}]},
        {'expr': query('Time to first token, p95'), 'eval_time': '5m',
         'exp_samples': [{'labels': '{host="a2-1", vllm_instance="main"}', 'value': 0.099}]},
        {'expr': query('KV cache used'), 'eval_time': '5m',
         'exp_samples': [{'labels': '{host="a2-1", vllm_instance="main"}', 'value': 0.25}]},
    ]}]
    (tmp_path / 'rules.yml').write_text('groups: []\n')
    (tmp_path / 'tests.yml').write_text(yaml.safe_dump({'rule_files': ['rules.yml'], 'tests': tests}, sort_keys=False))
    run = promtool('test', 'rules', 'tests.yml', cwd=str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
