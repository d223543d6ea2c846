"""The data owner's side of Mielikäinen (2004), §2: the anonymization f (Definition 2, a random
bijection from the items onto 1..|I|) and the frequent itemsets published with it, obscured the
two ways the paper considers: zero-mean Gaussian noise on each frequency, and itemsets omitted or
falsely claimed frequent.
"""

from __future__ import annotations

import numpy as np

from setveil.core.errors import ParameterError
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

from .itemsets import ItemsetCollection, canonical

#: draws allowed per false itemset before the owner gives up looking for one not yet listed
FALSE_ITEMSET_TRIES = 1000


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
    deviation ``noise`` added to every frequency.

    A false itemset has a size drawn from the sizes of the true ones, items drawn from theirs, is
    not a listed itemset, and takes the frequency of a true itemset of its size drawn at random,
    so neither its size nor its frequency gives it away.
    """
    if not 0 <= noise < np.inf:
        raise ParameterError("noise", f"{noise} is not a standard deviation >= 0")
    if not 0 <= omit < 1:
        raise ParameterError("omit", f"{omit} is not a share in [0, 1)")
    if not 0 <= add < np.inf:
        raise ParameterError("add", f"{add} is not a share >= 0")
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
    if noise > 0:
        published = ItemsetCollection(published.labels, published.indptr, published.items,
                                      published.frequencies + rng.normal(0.0, noise, len(published)))
    return published


def _false_itemsets(collection: ItemsetCollection, rng: np.random.Generator, count: int) -> list:
    if count == 0:
        return []
    listed = {tuple(collection.itemset(j)) for j in range(len(collection))}
    sizes = collection.sizes
    n_items = len(collection.labels)
    false: list[tuple[np.ndarray, float]] = []
    for _ in range(count * FALSE_ITEMSET_TRIES):
        j = int(rng.integers(len(collection)))
        size = int(sizes[j])
        if size > n_items:
            continue
        itemset = np.sort(rng.choice(n_items, size=size, replace=False))
        key = tuple(itemset)
        if key in listed:
            continue
        listed.add(key)
        false.append((itemset, float(collection.frequencies[j])))
        if len(false) == count:
            return false
    raise ParameterError("add", f"found only {len(false)} itemsets not yet listed of the {count} asked for")
