"""``setveil items split`` and ``setveil hierarchy build``: the inputs an experiment needs
besides the data, the sensitive and public items (Xu et al. KDD'08 §4.1, or a random share of
the item types as Jia et al. §4 draw them) and a balanced generalization hierarchy (He &
Naughton VLDB'09 §5.1.2)."""

from __future__ import annotations

import click
import numpy as np

from .cli import note
from .clitypes import SEED, FloatRange, IntRange
from .errors import InputError, ParameterError, counted, shown_path
from .formats import FORMATS, read_window
from .hierarchy import Hierarchy
from .itemsplit import coherence_split, random_split
from .output import check_output, distinct_outputs, write_outputs
from .schema import label_file_bytes


@click.group()
def items():
    """Item lists for experiments."""


@items.command("split")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@click.option("--method", type=click.Choice(["coherence", "random"]), default="coherence", show_default=True,
              help="coherence: Xu et al. §4.1 (public share δ, private = top non-public item of some transaction); "
                   "random: a share of item types sensitive.")
@click.option("--public-share", type=FloatRange(0, 1), help="δ: share of items made public (coherence).")
@click.option("--sensitive-share", type=FloatRange(0, 1), help="Share of item types made sensitive (random).")
@click.option("--h", "h", type=FloatRange(0, 1, min_open=True), help="Make items in more than h of the transactions public (coherence).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the random split.")
@click.option("--sensitive-out", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the sensitive items here ('-' for stdout).")
@click.option("--public-out", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the public items here ('-' for stdout).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix).")
def items_split(input_path, method, public_share, sensitive_share, h, seed, sensitive_out, public_out, fmt):
    """Choose sensitive and public items of INPUT at random (seeded)."""
    if method == "coherence" and public_share is None:
        raise ParameterError("public-share", "--method coherence needs it (δ, the share of items made public; "
                             "allowed: a number in [0, 1])")
    if method == "random" and sensitive_share is None:
        raise ParameterError("sensitive-share", "--method random needs it (the share of item types made sensitive; "
                             "allowed: a number in [0, 1])")
    for name, value, used_by in (("sensitive-share", sensitive_share, "random"), ("public-share", public_share, "coherence"),
                                 ("h", h, "coherence")):
        if value is not None and method != used_by:
            raise ParameterError(name, f"an option of --method {used_by}; --method {method} would ignore it")
    for flag, path in (("--sensitive-out", sensitive_out), ("--public-out", public_out)):
        if path is not None:
            check_output(path, flag, (input_path,))
    distinct_outputs({"--sensitive-out": sensitive_out, "--public-out": public_out})
    window = read_window(input_path, fmt)
    if not len(window.vocab):
        # an empty list written with exit 0 is refused only by the run that reads it (QA)
        raise InputError(input_path, "holds no items to split")
    if method == "coherence":
        split = coherence_split(window, public_share, seed, h)
    else:
        split = random_split(window, sensitive_share, seed)
    if not split.private:
        # every run refuses an empty sensitive list (it protects nothing): say so now (QA re-check)
        name, option = ("public-share", "--public-share (or --h)") if method == "coherence" else \
            ("sensitive-share", "--sensitive-share")
        raise ParameterError(name, f"the split of {shown_path(input_path)} makes no item sensitive; every run would "
                             f"refuse the list it wrote: change {option}")
    outputs = [(sensitive_out, label_file_bytes(sensitive_out, split.private))]
    if public_out is not None:
        outputs.append((public_out, label_file_bytes(public_out, split.public)))
    write_outputs(outputs)
    click.echo(f"{counted(len(split.private), 'sensitive item')}, {counted(len(split.public), 'public item')}, "
               f"{counted(len(split.neutral), 'neutral item')}", err=True)
    if public_out is None and split.neutral:
        # the split's public list is not written, and a run given --sensitive alone counts every
        # other item public: the neutral items counted above would not be neutral there
        note(f"no --public-out: a run given this --sensitive list alone counts the "
             f"{counted(len(split.neutral), 'neutral item')} public too, which --public-out would keep neutral")


@click.group()
def hierarchy():
    """Generalization hierarchies (child,parent files)."""


@hierarchy.command("build")
@click.argument("input_path", metavar="INPUT", type=click.Path(allow_dash=True))
@click.option("--fanout", required=True, type=IntRange(min=2), help="Children per inner node (f of He & Naughton §5.1.2).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Write child,parent lines here ('-' for stdout).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Input format (default: from the suffix).")
def hierarchy_build(input_path, fanout, output, fmt):
    """Build the balanced hierarchy of fan-out f over the items of INPUT.

    Items are sorted with integer labels first in numeric order, then the others; runs of f
    nodes get a parent labelled first..last, level by level, up to one root.
    """
    check_output(output, "--output", (input_path,))
    window = read_window(input_path, fmt)
    built = Hierarchy.balanced((window.vocab.labels[i] for i in np.flatnonzero(window.supports)), fanout, input_path)
    if len(built) == 1:  # the input's fault, not the output's (QA: the error named -o)
        raise InputError(input_path, "holds one distinct item: a hierarchy over it is a single node, with no edge "
                                     "to write")
    built.write(output)
    click.echo(f"{built.n_leaves} items, {len(built)} nodes, height {built.height}", err=True)
