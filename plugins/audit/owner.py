"""The data owner's side of Mielikäinen (2004), §2: the anonymization f (Definition 2, a random
bijection from the items onto 1..|I|) and the frequent itemsets published with it, obscured the
two ways the paper considers: zero-mean Gaussian noise on each frequency, and itemsets omitted or
falsely claimed frequent.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from setveil.core.errors import ParameterError
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

from .itemsets import ItemsetCollection, canonical

#: largest noise standard deviation: a frequency is a share in [0, 1], so noise of a larger
#: standard deviation leaves nothing of it
MAX_NOISE = 1.0

#: most false itemsets, as a share of the frequent ones: past this the release is nearly all false
MAX_ADD = 10.0


def random_names(labels, rng: np.random.Generator) -> dict[str, str]:
    """Definition 2's f over ``labels``: a random bijection onto ``1``..``len(labels)``."""
    image = rng.permutation(len(labels))
    return {label: str(int(image[i]) + 1) for i, label in enumerate(labels)}


def rename(window: Window, rng: np.random.Generator) -> tuple[Window, dict[str, str]]:
    """f(D): every item renamed by :func:`random_names`; the transactions keep their order and
    each one's items are listed in the order of their new names. Returns the renamed window and
    f as ``{original: renamed}``."""
    labels = window.vocab.labels
    names = random_names(labels, rng)
    image = np.array([int(names[label]) - 1 for label in labels], dtype=np.int64)
    vocab = Vocabulary(str(k + 1) for k in range(len(labels)))
    return Window.from_flat(vocab, window.lengths, image[window.indices], window.tids), names


def publish(
    collection: ItemsetCollection,
    rng: np.random.Generator,
    *,
    noise: float = 0.0,
    omit: float = 0.0,
    add: float = 0.0,
) -> ItemsetCollection:
    """The itemsets as the owner publishes them: a share ``omit`` of them left out at random, a
    share ``add`` (of the mined count) of false itemsets added, and Gaussian noise of standard
    deviation ``noise`` added to every frequency. Refuses (:class:`ParameterError`) a release
    with no itemset (an empty ``collection``, or ``omit`` leaving none and ``add`` adding none),
    or more false itemsets than there are itemsets to claim. A release whose every true itemset
    was omitted but that holds false ones is published: deanonymize reads it, and an experiment
    may ask for it.

    A false itemset has a size drawn from the sizes of the true ones, items drawn from theirs, is
    not a listed itemset, and takes the frequency of a true itemset of its size drawn at random,
    so neither its size nor its frequency gives it away.
    """
    check_perturbation(noise, omit, add)
    n = len(collection)
    keep = np.ones(n, dtype=bool)
    keep[rng.choice(n, size=round(omit * n), replace=False)] = False
    published = collection.restrict(keep)
    false = _false_itemsets(collection, rng, round(add * n))
    if false:
        sizes = np.array([len(itemset) for itemset, _ in false], dtype=np.int64)
        indptr = np.concatenate([published.indptr, published.indptr[-1] + np.cumsum(sizes)])
        items = np.concatenate([published.items, np.concatenate([itemset for itemset, _ in false])])
        frequencies = np.concatenate([published.frequencies, [frequency for _, frequency in false]])
        published = canonical(collection.labels, indptr, items, frequencies)
    # deanonymize refuses a file without itemsets, so publishing one would be a release nobody can use
    if not n:
        raise ParameterError("collection", "holds no itemset, so there is nothing to publish")
    if not len(published):
        raise ParameterError("omit", f"{omit!r} leaves none of the {n} frequent itemsets to publish")
    if noise > 0:
        published = ItemsetCollection(published.labels, published.indptr, published.items,
                                      published.frequencies + rng.normal(0.0, noise, len(published)))
    # an item whose itemsets were all omitted is not in the release: kept, bench audit handed
    # the attack a name its file does not hold and counted it among the published items, where
    # deanonymize, reading the file, knows only the items it holds (QA as an auditor)
    return published.over_held_labels()


def check_perturbation(noise: float, omit: float, add: float) -> None:
    """Refuse a perturbation out of range, before anything is read."""
    if not 0 <= noise <= MAX_NOISE:
        raise ParameterError("noise", f"{noise} is not a standard deviation in [0, {MAX_NOISE:g}]")
    if not 0 <= omit < 1:
        raise ParameterError("omit", f"{omit} is not a share in [0, 1)")
    if not 0 <= add <= MAX_ADD:
        raise ParameterError("add", f"{add} is not a share in [0, {MAX_ADD:g}]")


def _false_itemsets(collection: ItemsetCollection, rng: np.random.Generator, count: int) -> list:
    """``count`` itemsets not in ``collection``, each with the size and frequency of a true one."""
    if count == 0:
        return []
    sizes, frequent = np.unique(collection.sizes, return_counts=True)
    n_items = len(collection.labels)
    # room is capped at count so that it fits an int64 (C(n, k) need not) and costs nothing to sum
    room = np.array([min(math.comb(n_items, int(s)) - int(f), count) for s, f in zip(sizes, frequent)], dtype=np.int64)
    available = int(room.sum())
    if count > available:
        largest = _largest_share(available, len(collection))
        one = available == 1
        raise ParameterError("add", f"asks for {count:,} false itemsets, but only {available:,} "
                                    f"{'itemset' if one else 'itemsets'} of the published sizes over the "
                                    f"{n_items} frequent items {'is' if one else 'are'} not frequent "
                                    f"(--add {largest:g} at most)")
    false: list[tuple[np.ndarray, float]] = []
    for size, wanted in zip(sizes, _counts_per_size(frequent, room, count, rng)):
        if wanted == 0:
            continue
        positions, items = collection.level(int(size))
        listed = {tuple(row) for row in items.tolist()}
        frequencies = collection.frequencies[positions[rng.integers(len(positions), size=wanted)]]
        false += zip(_unlisted(n_items, int(size), listed, int(wanted), rng), frequencies.tolist())
    return false


def _largest_share(room: int, n: int) -> float:
    """The largest share of 4 decimals whose count of false itemsets, round(share * n) as
    :func:`publish` takes it, is at most ``room``: below (room + 1/2) / n, not room / n."""
    steps = math.floor((room + 0.5) / n * 1e4) + 1
    while round(steps / 1e4 * n) > room:
        steps -= 1
    return steps / 1e4


def _counts_per_size(frequent: np.ndarray, room: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """How many false itemsets of each size: drawn in proportion to the true itemsets of the
    size; a size with no room left passes its draws on to the others (each round fills one
    size at least, so there are at most as many rounds as sizes)."""
    counts = np.zeros(len(frequent), dtype=np.int64)
    while counts.sum() < count:
        weights = np.where(counts < room, frequent, 0)
        counts = np.minimum(counts + rng.multinomial(count - counts.sum(), weights / weights.sum()), room)
    return counts


def _unlisted(n_items: int, size: int, listed: set, wanted: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``wanted`` distinct itemsets of ``size`` items out of ``n_items``, none in ``listed``.
    Drawing at random and redrawing a listed one is fast while at least half the itemsets are
    free, since a draw then succeeds with probability 1/2 or more; otherwise there are at most
    2 (listed + wanted) itemsets of the size, few enough to list and choose from."""
    if math.comb(n_items, size) <= 2 * (len(listed) + wanted):
        free = [c for c in itertools.combinations(range(n_items), size) if c not in listed]
        return [np.array(free[i], dtype=np.int64) for i in rng.choice(len(free), size=wanted, replace=False)]
    taken = set(listed)
    found: list[np.ndarray] = []
    while len(found) < wanted:
        key = tuple(sorted(rng.choice(n_items, size=size, replace=False).tolist()))
        if key not in taken:
            taken.add(key)
            found.append(np.array(key, dtype=np.int64))
    return found
