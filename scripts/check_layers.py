#!/usr/bin/python3
"""The module layering, enforced (DESIGN.md §2; docs/decisions.md, "Module layering").

Every folder under src/ is a module. A file in module M may include headers of M itself and of the
modules on lower layers of LAYERS below, and of nothing else: not of a module on its own layer (a
peer), not of one above it. Tests (`*_test.cc`) and their test utilities follow the rules of the
module they live in. An include is `#include "X/..."` (or `<X/...>`) where X is a module.

The same goes for linking: with --links (written by CMakeLists.txt: one `module target used_module
used_target` line for each target of a module that links a library of a module), a target may link
only libraries of its own module and of lower layers.

The build runs this before it compiles anything (the `check_layers` target, CMakeLists.txt), so an
include that reaches up fails the build with the file and line. By hand:

    /usr/bin/python3 scripts/check_layers.py            # every module under src/
    /usr/bin/python3 scripts/check_layers.py config api # only these

Exit status 0 when every include goes down, 1 when some do not (each printed as
`path:line: error: ...`), 2 when the tree does not match the table (a folder under src/ that no layer
names, or a module named that is not there).
"""
import argparse
import re
import sys
from pathlib import Path

# The layers, lowest first: the one table of allowed edges. A module may include (and its CMake
# target may link) the modules of every earlier line; modules on one line are peers and may not use
# each other. src/ holds exactly these folders.
LAYERS = [
    ["common"],
    ["config"],
    ["api"],
    ["searcher", "scheduler"],
    ["client"],
    ["storage"],
    ["master", "agent", "cli", "harness"],
]

SOURCE_SUFFIXES = {".h", ".cc", ".hpp", ".cpp", ".inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of():
    return {module: i for i, layer in enumerate(LAYERS) for module in layer}


def allowed(module):
    """The modules `module` may include and link besides itself, lowest first."""
    level = layer_of()[module]
    return [m for layer in LAYERS[:level] for m in layer]


def relation(used, module):
    """None when `module` may use `used`, else why not ("above", "a peer of")."""
    layers = layer_of()
    if used == module or layers[used] < layers[module]:
        return None
    return "a peer of" if layers[used] == layers[module] else "above"


def check_links(path, modules):
    """The layering errors of the link lines in `path` whose target is in one of `modules`."""
    errors = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        module, target, used, library = line.split()
        if module not in modules or used not in layer_of():
            continue
        why = relation(used, module)
        if why:
            may = ", ".join(allowed(module)) or "no other module"
            errors.append(
                f"src/{module}/CMakeLists.txt: error: target {target} of module {module} links "
                f"{library}, but {used} is {why} {module}; {module} may link only: {may}"
            )
    return errors


def check_file(path, module, display):
    """The layering errors of one file, as `display:line: error: ...` lines."""
    layers = layer_of()
    errors = []
    text = path.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        match = INCLUDE.match(line)
        if not match:
            continue
        target = match.group(2)
        parts = target.split("/")
        if match.group(1) == '"' and ".." in parts:
            errors.append(
                f'{display}:{number}: error: module {module} includes "{target}" by a relative path; '
                f'include headers by their module path ("module/file.h")'
            )
            continue
        if len(parts) < 2 or parts[0] not in layers:
            continue  # a system or third-party header, or one beside this file
        used = parts[0]
        why = relation(used, module)
        if not why:
            continue
        may = ", ".join(allowed(module)) or "no other module"
        errors.append(
            f'{display}:{number}: error: module {module} includes "{target}", but {used} '
            f"(layer {layers[used] + 1}) is {why} {module} (layer {layers[module] + 1}); "
            f"{module} may include only: {may}"
        )
    return errors


def main(argv=None):
    repo = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=repo / "src", help="the src/ folder to check")
    parser.add_argument("--links", type=Path, help="the link lines CMake wrote (see above)")
    parser.add_argument("--stamp", type=Path, help="touched when the check passes (for the build)")
    parser.add_argument("modules", nargs="*", help="the modules to check (default: all)")
    args = parser.parse_args(argv)

    layers = layer_of()
    present = sorted(p.name for p in args.src.iterdir() if p.is_dir())
    unknown = [m for m in present if m not in layers]
    if unknown:
        for m in unknown:
            print(f"{args.src / m}/: error: module {m} is in no layer of scripts/check_layers.py's "
                  f"LAYERS table; add it to the layer it belongs to (DESIGN.md §2)", file=sys.stderr)
        return 2
    modules = args.modules or present
    missing = [m for m in modules if m not in layers or not (args.src / m).is_dir()]
    if missing:
        print(f"check_layers: no module {', '.join(missing)} under {args.src} "
              f"(modules: {', '.join(present)})", file=sys.stderr)
        return 2

    errors = []
    checked = 0
    for module in modules:
        for path in sorted((args.src / module).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                try:
                    display = path.relative_to(repo)
                except ValueError:
                    display = path
                errors += check_file(path, module, display)
                checked += 1
    if args.links:
        errors += check_links(args.links, modules)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        order = " < ".join(", ".join(layer) for layer in LAYERS)
        print(f"check_layers: {len(errors)} include(s) or link(s) do not go down the module order {order} "
              f"(scripts/check_layers.py; docs/decisions.md, \"Module layering\")", file=sys.stderr)
        return 1
    if args.stamp:
        args.stamp.write_text(f"{checked} files in {' '.join(modules)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
