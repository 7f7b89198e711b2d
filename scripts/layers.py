#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hookcmp's layers, from the objects the build made: which object uses
which other's symbols (nm). Prints PASS/FAIL lines, as the tests do.

  cli/ -> bench/ -> loader/ (the hooks) -> qdisc/ -> core/

Each folder is a layer (bench/ with its subfolders). Every use points
down that list or stays in its folder, no two files of a folder use
each other, however indirectly (qdisc/ aside: its journal kinds in
jkinds.c undo what qdisc.c makes, and qdisc.c journals with them), and
only the printer (print.o) calls the JSON writer's jw_* functions.
A room's private header, its internal.h, is included only from its
own files (the compiler's .d files say who includes what).

  scripts/layers.py [BUILD]     check BUILD (default: build)
  scripts/layers.py --selftest  check that a wrong graph is caught
"""
import collections
import os
import subprocess
import sys

ORDER = ['core', 'qdisc', 'hooks', 'bench', 'cli']
CIRCLE_FREE = ['core', 'hooks', 'bench', 'cli']
# Each layer's folder under BUILD (bench/'s subfolders are bench too).
FOLDERS = {'core': 'core', 'qdisc': 'qdisc', 'loader': 'hooks',
           'bench': 'bench', 'cli': 'cli'}


def layer(obj):
    """The layer of BUILD/FOLDER/.../NAME.o, or None for another."""
    parts = obj.split(os.sep)
    for part in parts[:-1]:
        if part in FOLDERS:
            return FOLDERS[part]
    return None


def symbols(objs):
    """Each object's uses of another's symbols: {obj: {obj: [symbol]}}."""
    defined, wanted = {}, {}
    for obj in objs:
        out = subprocess.run(['nm', obj], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TDBRCGSV':
                defined[f[2]] = obj
            elif len(f) == 2 and f[0] == 'U':
                wanted.setdefault(obj, set()).add(f[1])
    uses = collections.defaultdict(lambda: collections.defaultdict(list))
    for obj, syms in wanted.items():
        for sym in sorted(syms):
            other = defined.get(sym)
            if other and other != obj:
                uses[obj][other].append(sym)
    return uses


def cycles(nodes, uses):
    """Strongly connected sets of two or more nodes (Tarjan's)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in uses.get(v, {}):
            if w not in nodes:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def check(uses, objs):
    """The failures, each a line with its evidence; [] when none."""
    fails = []
    for a in sorted(uses):
        for b, syms in sorted(uses[a].items()):
            la, lb = layer(a), layer(b)
            if la and lb and ORDER.index(lb) > ORDER.index(la):
                fails.append('%s (%s) uses %s (%s): %s' %
                             (a, la, b, lb, ', '.join(syms[:4])))
            jw = [s for s in syms if s.startswith('jw_')]
            if jw and os.path.basename(a) != 'print.o':
                fails.append('%s writes JSON past the printer: %s' %
                             (a, ', '.join(jw[:4])))
    for lay in CIRCLE_FREE:
        files = {o for o in objs if layer(o) == lay}
        for comp in cycles(files, uses):
            why = ['%s -> %s (%s)' % (os.path.basename(a),
                                      os.path.basename(b), uses[a][b][0])
                   for a in comp for b in comp if b in uses.get(a, {})]
            fails.append('%s files in a circle: %s' % (lay, '; '.join(why)))
    return fails


def dep_rules(build):
    """Each object's source and the headers it includes, from the .d
    files under BUILD: [(source, [header])], paths as make wrote them."""
    rules = []
    for d, _, fs in os.walk(build):
        for f in sorted(fs):
            if not f.endswith('.d'):
                continue
            with open(os.path.join(d, f)) as fh:
                text = fh.read().replace('\\\n', ' ')
            for line in text.splitlines():
                target, sep, deps = line.partition(':')
                deps = deps.split()
                # -MP's empty rules name a header and nothing else.
                if sep and target.strip().endswith('.o') and deps:
                    rules.append((deps[0], deps[1:]))
    return rules


def private_includes(rules, root='.'):
    """The failures: a room's internal.h included from outside the room."""
    fails = []
    for src, headers in rules:
        where = os.path.dirname(os.path.normpath(os.path.join(root, src)))
        for h in headers:
            if os.path.basename(h) != 'internal.h':
                continue
            room = os.path.dirname(os.path.normpath(os.path.join(root, h)))
            if where != room and not where.startswith(room + os.sep):
                fails.append("a room's internal.h included from outside "
                             'the room: %s includes %s' % (src, h))
    return fails


def selftest():
    objs = ['b/core/util.o', 'b/cli/run.o', 'b/bench/a.o', 'b/bench/b.o',
            'b/bench/c.o', 'b/loader/xdp.o', 'b/qdisc/qdisc.o',
            'b/core/print.o', 'b/core/json.o', 'b/bench/kinds/d.o']

    def graph(edges, sym='sym'):
        uses = collections.defaultdict(lambda: collections.defaultdict(list))
        for a, b in edges:
            uses[a][b].append(sym)
        return uses

    good = graph([('b/cli/run.o', 'b/bench/a.o'), ('b/bench/a.o', 'b/bench/b.o'),
                  ('b/bench/b.o', 'b/bench/kinds/d.o'),
                  ('b/bench/kinds/d.o', 'b/loader/xdp.o'),
                  ('b/loader/xdp.o', 'b/qdisc/qdisc.o'),
                  ('b/qdisc/qdisc.o', 'b/core/util.o')])
    up = graph([('b/core/util.o', 'b/cli/run.o')])
    hooks_up = graph([('b/qdisc/qdisc.o', 'b/loader/xdp.o')])
    sub_up = graph([('b/bench/kinds/d.o', 'b/cli/run.o')])
    circle = graph([('b/bench/a.o', 'b/bench/b.o'), ('b/bench/b.o', 'b/bench/c.o'),
                    ('b/bench/c.o', 'b/bench/a.o')])
    core_circle = graph([('b/core/util.o', 'b/core/print.o'),
                         ('b/core/print.o', 'b/core/util.o')])
    printer = graph([('b/core/print.o', 'b/core/json.o')], 'jw_str')
    past = graph([('b/loader/xdp.o', 'b/core/json.o')], 'jw_str')
    cases = [('layers: a graph that points down passes', good, 0),
             ('layers: the printer calling jw_* passes', printer, 0),
             ('layers: a hook calling jw_* is caught', past, 1),
             ('layers: the core using cli is caught', up, 1),
             ('layers: qdisc/ using loader/ is caught', hooks_up, 1),
             ('layers: a bench/ subfolder using cli/ is caught', sub_up, 1),
             ('layers: three bench/ files in a circle are caught', circle, 1),
             ('layers: two core files in a circle are caught', core_circle, 1)]
    inside = [('bench/topos/topo.c', ['bench/bench.h',
                                      'bench/topos/internal.h'])]
    outside = inside + [('bench/kinds/kind_bpf.c',
                         ['bench/topos/topo.h', 'bench/topos/internal.h'])]
    tests = [('tests/test_bench.c', ['bench/topos/internal.h'])]
    cases += [('layers: internal.h from its own room passes', inside, 0),
              ('layers: internal.h from another room is caught', outside, 1),
              ('layers: internal.h from the tests is caught', tests, 1)]
    bad = 0
    for name, uses, want in cases:
        got = len(private_includes(uses) if isinstance(uses, list) else
                  check(uses, objs))
        ok = got == want
        bad += not ok
        print('%s %s%s' % ('PASS' if ok else 'FAIL', name,
                           '' if ok else ' (%d failures, not %d)' % (got, want)))
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ['--selftest']:
        return selftest()
    build = sys.argv[1] if len(sys.argv) > 1 else 'build'
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # An object whose source is gone (moved, renamed) is left over, unlinked.
    objs = sorted(o for o in (os.path.join(d, f)
                              for d, _, fs in os.walk(build) for f in fs
                              if f.endswith('.o') and not f.endswith('.bpf.o'))
                  if layer(o) and os.sep + 'tests' + os.sep not in o and
                  os.path.exists(os.path.join(
                      root, os.path.relpath(o, build)[:-2] + '.c')))
    if not objs:
        print('FAIL layers: no objects under %s: build first' % build)
        return 1
    fails = check(symbols(objs), objs) + private_includes(dep_rules(build),
                                                          root)
    for f in fails:
        print('FAIL layers: %s' % f)
    if not fails:
        folder = {lay: f for f, lay in FOLDERS.items()}
        print('PASS layers: %d objects: every use points down %s, no '
              'files of a folder in a circle, JSON only through the printer, '
              "a room's internal.h only in the room" %
              (len(objs), ' -> '.join(folder[lay] + '/'
                                      for lay in reversed(ORDER))))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
