#!/usr/bin/env python3
"""Checks that every #include in core/, app/, views/ and tests/ points the right way.

Usage: check-includes.py [--expect-marked] SOURCE_ROOT

Prints FILE:LINE: RULE: what is wrong, for each wrong-way include, and exits 1 if there was any.
With --expect-marked the tree is a fixture: every include line that must be reported carries a comment
`expect: RULE`, and the check passes only when exactly those lines are reported, each under its rule.

Rules (docs/architecture.md, "Data moves one way"):
  core-gtk       core/ and tests/core/ do not include GTK, GDK, GSK, Adwaita or GtkSourceView.
  onnx-format    core/onnx/ is the file format only: it includes no plan, shape, exec, codegen, report,
                 export or session header.
  private        views/ and app/ do not include a core *-private.h: the views read core objects through
                 their public headers.
  layer          a core folder includes only folders of its own layer or below (table LAYERS); core
                 includes nothing from views/ or app/, views/ nothing from app/.
  target         the code generators for different targets (core/codegen/host, core/codegen/ascend)
                 include nothing of each other; core/codegen/ itself drives them.
  unresolved     an include in quotes that names no file of the tree (the checker would miss it).
"""

import os
import re
import sys

# The layering of core/, bottom (0) to top, true of the includes today. A folder may include its own
# layer and any layer below; folders of one layer may include each other (ops and shape do: the registry
# holds each op's shape function, inference walks the registry). fw-error.h at core/ is the bottom.
LAYERS = {
    '': 0,          # core/fw-error.h
    'graph': 0,     # the IR
    'yaml': 0,      # YAML documents, no format in particular
    'io': 0,        # atomic writes, progress
    'onnx': 1,      # the ONNX wire format to and from the IR
    'ops': 1,       # the op registry
    'shape': 1,     # shape and dtype inference
    'hw': 1,        # hardware profiles
    'rules': 1,     # fusion rule sets
    'layout': 1,    # the graph's layered layout (read by report's pictures and the views)
    'plan': 2,      # discovery, estimates, decisions
    'exec': 3,      # reference interpreter, fused executor, verify and measure
    'codegen': 4,   # host C and Ascend C kernels, the kernel package
    'report': 5,    # JSON, Markdown, pictures
    'export': 6,    # the export folder (fused model, whitelist, package, report)
    'session': 7,   # FwProject, the session file, FwCheck: the pipeline on top
    'gi': 8,        # the scripting face over the pipeline (GObject Introspection, Python)
}
VIEWS_LAYER = 9
APP_LAYER = 10

# Documented exceptions: (including file, included file as written): why it is allowed for now.
EXCEPTIONS = {
}

GTK_HEADER = re.compile(r'^(gtk/|gdk/|gsk/|adwaita\.h$|gtksourceview|libadwaita)')
ONNX_FORBIDDEN = ('plan', 'shape', 'exec', 'codegen', 'report', 'export', 'session')
TARGETS = ('host', 'ascend')
SCANNED = ('core', 'app', 'views', 'tests')
SKIPPED = ('tests/data/', 'tests/ort/node_modules/', 'tests/twin/')  # tests/twin: Ascend C for the twin
GENERATED = {'config.h', 'hw/fw-hw-resources.h', 'codegen/fw-twin-resources.h'}  # written into the build folder
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"](.*)$')
EXPECT = re.compile(r'expect:\s*([a-z-]+)')


def sources(root):
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, root).replace(os.sep, '/')
            if any((rel_dir + '/').startswith(s) for s in SKIPPED):
                dirnames[:] = []
                continue
            for name in sorted(filenames):
                if name.endswith(('.c', '.h')):
                    yield rel_dir + '/' + name


def resolve(root, source, name):
    """The tree-relative path an include in quotes reaches, searched as the build's include path does:
    the including file's folder, then the repository root and core/, then the folders other targets
    export (views/ and app/ to the GUI tests, tests/core/ to every test)."""
    here = os.path.dirname(source)
    for base in (here, '', 'core', 'views', 'app', 'tests/core'):
        candidate = os.path.normpath(os.path.join(base, name)).replace(os.sep, '/')
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def area(path):
    """(kind, core folder, codegen target) of a tree-relative path."""
    parts = path.split('/')
    if parts[0] == 'core':
        folder = parts[1] if len(parts) > 2 else ''
        target = parts[2] if folder == 'codegen' and len(parts) > 3 and parts[2] in TARGETS else None
        return 'core', folder, target
    return parts[0], None, None


def layer(path):
    kind, folder, _ = area(path)
    if kind == 'core':
        return LAYERS.get(folder)
    return {'views': VIEWS_LAYER, 'app': APP_LAYER}.get(kind)


def check_include(root, source, bracket, name):
    """The (rule, message) pairs an include breaks."""
    kind, folder, target = area(source)
    gtk_free = kind == 'core' or source.startswith('tests/core/')
    if bracket == '<':
        if gtk_free and GTK_HEADER.match(name):
            return [('core-gtk', f'<{name}> in a GTK-free file')]
        return []
    if name in GENERATED:
        return []
    path = resolve(root, source, name)
    if path is None:
        return [('unresolved', f'"{name}" names no file of the tree')]
    found = []
    to_kind, to_folder, to_target = area(path)
    if kind == 'core' and folder == 'onnx' and to_kind == 'core' and to_folder in ONNX_FORBIDDEN:
        found.append(('onnx-format', f'core/onnx includes {to_folder}/ ("{name}")'))
    if kind in ('views', 'app') and to_kind == 'core' and path.endswith('-private.h'):
        found.append(('private', f'{kind}/ includes the core private header "{name}"'))
    if target and to_target and target != to_target:
        found.append(('target', f'codegen/{target} includes codegen/{to_target} ("{name}")'))
    from_layer, to_layer = layer(source), layer(path)
    if kind == 'core' and from_layer is None:
        found.append(('layer', f'core/{folder}/ has no layer in the table'))
    elif from_layer is not None and to_layer is not None and to_layer > from_layer:
        found.append(('layer', f'{describe(source)} (layer {from_layer}) includes {describe(path)} '
                      f'(layer {to_layer}): "{name}"'))
    return found


def describe(path):
    kind, folder, _ = area(path)
    if kind == 'core':
        return f'core/{folder}/' if folder else 'core/'
    return f'{kind}/'


def main(argv):
    expect_marked = '--expect-marked' in argv
    args = [a for a in argv if a != '--expect-marked']
    if len(args) != 1:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    root = args[0]
    if not os.path.isdir(os.path.join(root, 'core')):
        print(f'{root}: not a source tree (no core/)', file=sys.stderr)
        return 2

    # The exceptions describe this repository, not a fixture tree.
    own_tree = os.path.samefile(root, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    exceptions = EXCEPTIONS if own_tree else {}
    reported = set()
    expected = set()
    used = set()
    failed = False
    for source in sources(root):
        with open(os.path.join(root, source), encoding='utf-8', errors='replace') as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                bracket, name, rest = m.groups()
                for rule in EXPECT.findall(rest):
                    expected.add((source, lineno, rule))
                for rule, message in check_include(root, source, bracket, name):
                    key = (source, name)
                    if key in exceptions:
                        used.add(key)
                        continue
                    print(f'{source}:{lineno}: {rule}: {message}')
                    reported.add((source, lineno, rule))
                    failed = True
    if not expect_marked:
        for key in sorted(set(exceptions) - used):
            print(f'{key[0]}: stale exception: no wrong-way include of "{key[1]}" any more; '
                  f'remove it from EXCEPTIONS in {os.path.basename(__file__)}')
            failed = True
        return 1 if failed else 0

    missing = sorted(expected - reported)
    for source, lineno, rule in missing:
        print(f'{source}:{lineno}: not reported: expected rule {rule}')
    if missing or reported != expected or not expected:
        print(f'fixture: {len(reported & expected)} of {len(expected)} marked violations reported, '
              f'{len(reported - expected)} unmarked', file=sys.stderr)
        return 1
    print(f'fixture: all {len(expected)} marked violations reported, nothing else')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
