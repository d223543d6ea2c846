"""docs/operations.md's Delivery guarantees, as a consumer of the batches reads them beside
docs/batch-format.md's Delivery: each guarantee's bullet holds its own story."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _guarantees() -> dict[str, str]:
    """The bullets of docs/operations.md's "Delivery guarantees", by their bold title, each one line."""
    section = (REPO / "docs" / "operations.md").read_text().split("\n## Delivery guarantees\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    bullets = [" ".join(bullet.split()) for bullet in section.split("\n- **")[1:]]
    return {bullet.split("**", 1)[0]: bullet for bullet in bullets}


def test_the_offsets_that_start_again_bullet_holds_no_rebalance_story():
    # walkthrough as a consumer: 20b6f12 put the bullet on offsets that start again inside the one
    # on a partition kept through a rebalance, so "released 95 transactions twice ... 404-422 and
    # 404-423", a rebalance case fixed in 59bf701, read as a consequence of a log that starts again,
    # a case docs/batch-format.md's Delivery does not list
    guarantees = _guarantees()
    restart = guarantees["Offsets that start again: not detected, input lost."]
    kept = guarantees["A partition kept through a rebalance is not read twice."]
    assert "404-422" not in restart and "rebalance" not in restart
    assert restart.endswith("and replay what the input topic held.")
    assert "emitted under a new window id). `setveil_messages_redelivered_total` counts them. Between a " \
           "revocation and the next assignment no window is cut" in kept
    assert kept.endswith("as windows 404-422 and 404-423.)")
