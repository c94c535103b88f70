#!/usr/bin/env python3
"""ctest-report.py BUILD_DIR JUNIT_XML [--name NAME] [--excluded LABEL ...]

What one ctest pass really did, from ctest's JUnit file (ctest --output-junit)
and its test list (ctest --show-only=json-v1, which carries the labels):

  NAME: P passed, F failed, S skipped (of N)
    skipped, by label:
      gpu (86 of 87): app.cli.demo_gpu, bpc.gpu, ...
    why: "no GPU: GPU decoder tests skipped" (80 tests), ...
    every test labelled gpu was skipped: no CUDA code ran on a GPU in this pass

A test that returns ctest's skip code (77) is skipped, never passed; one that
did not run for another reason (not built, missing fixture) is a failure.
The last line printed is machine-readable: "counts P F S G", G being the
number of tests labelled gpu that ran (passed or failed).
"""
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict


# How ctest's JUnit file marks a test that said it could not run: its exit
# status was SKIP_RETURN_CODE (77), or its output matched SKIP_REGULAR_EXPRESSION
# (the tests run through cmake -P scripts, which cannot choose their exit status).
SKIP_MESSAGES = ('SKIP_RETURN_CODE=77', 'SKIP_REGULAR_EXPRESSION_MATCHED')


def reason(output, test):
    """The test's own words for why it skipped: its last line, or the end of a
    message that CMake wrapped over several lines."""
    lines = [ln.strip() for ln in output.strip().splitlines() if ln.strip()]
    if not lines:
        return '(no reason printed)'
    text = lines[-1] if len(lines) <= 2 else ' '.join(lines[-4:])
    # Paths differ from test to test; the reason is the same.
    text = re.sub(r'\S*/\S*', '<file>', text)
    text = re.sub(r'\b' + re.escape(test.split('.')[-1]) + r'\b', '<test>', text)
    return text if len(text) <= 100 else '...' + text[-97:]


def labels_of(build):
    out = subprocess.run(['ctest', '--show-only=json-v1'], cwd=build, check=True,
                         capture_output=True, text=True).stdout
    labels = {}
    for t in json.loads(out)['tests']:
        props = {p['name']: p['value'] for p in t.get('properties', [])}
        labels[t['name']] = props.get('LABELS', [])
    return labels


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    build, junit = args[0], args[1]
    name, excluded = build, []
    rest = args[2:]
    while rest:
        if rest[0] == '--name' and len(rest) > 1:
            name, rest = rest[1], rest[2:]
        elif rest[0] == '--excluded' and len(rest) > 1:
            excluded.append(rest[1])
            rest = rest[2:]
        else:
            sys.exit('ctest-report.py: unknown argument ' + rest[0])

    labels = labels_of(build)
    passed, failed, skipped = [], [], []
    reasons = {}
    for case in ET.parse(junit).getroot().iter('testcase'):
        test = case.get('name')
        status = case.get('status')
        skip = case.find('skipped')
        if status == 'run' and case.find('failure') is None:
            passed.append(test)
        elif status == 'notrun' and skip is not None and skip.get('message') in SKIP_MESSAGES:
            skipped.append(test)
            reasons[test] = reason(case.findtext('system-out') or '', test)
        else:
            failed.append(test)

    ran = len(passed) + len(failed) + len(skipped)
    print(f'{name}: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped (of {ran})')
    if failed:
        print('    failed: ' + ', '.join(sorted(failed)))
    by_label = defaultdict(list)
    for t in skipped:
        for lab in labels.get(t) or ['(no label)']:
            by_label[lab].append(t)
    if skipped:
        print('    skipped, by label:')
        for lab in sorted(by_label, key=lambda k: (-len(by_label[k]), k)):
            total = sum(1 for t in labels if lab in labels[t])
            tests = sorted(by_label[lab])
            shown = ', '.join(tests[:12]) + (f', ... ({len(tests) - 12} more)' if len(tests) > 12 else '')
            print(f'      {lab} ({len(tests)} of {total}): {shown}')
        why = defaultdict(list)
        for t in skipped:
            why[reasons[t]].append(t)
        print('    why:')
        for r in sorted(why, key=lambda k: -len(why[k])):
            print(f'      "{r}" ({len(why[r])} test{"s" if len(why[r]) > 1 else ""})')
    gpu_all = [t for t in labels if 'gpu' in labels[t]]
    if gpu_all and all(t in skipped for t in gpu_all):
        print(f'    every test labelled gpu ({len(gpu_all)}) was skipped: '
              'no CUDA code ran on a GPU in this pass')
    for lab in excluded:
        n = sum(1 for t in labels if lab in labels[t])
        print(f'    left out by label: {lab} ({n} tests)')
    gpu_ran = sum(1 for t in passed + failed if 'gpu' in labels.get(t, []))
    print(f'counts {len(passed)} {len(failed)} {len(skipped)} {gpu_ran}')


if __name__ == '__main__':
    main()
