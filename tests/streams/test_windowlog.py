"""The window-log reader against a real broker: a stopping worker leaves no client open."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from setveil.streams import kafka
from setveil.streams.windowlog import WindowLogError, WindowLogReader

pytestmark = pytest.mark.slow

#: seconds after which a read is cut short: within its consumer's start, its admin client's, or after
CUTS = (0, 0.001, 0.01, 0.05, 0.1, 0.3)


def _unclosed_clients(run) -> list[str]:
    """The clients that ``run`` left open, as aiokafka reports them when they are collected."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        asyncio.run(run())
        gc.collect()
    return [str(w.message) for w in caught if "Unclosed" in str(w.message)]


async def _reader(settings) -> WindowLogReader:
    counts = await kafka.ensure_topics(settings)
    return WindowLogReader(settings, counts[settings.topics.windows])


def test_a_stopped_reader_reads_nothing_and_opens_no_client(make_settings):
    settings = make_settings()

    async def run():
        reader = await _reader(settings)
        await reader.stop()
        with pytest.raises(WindowLogError, match="stopped"):
            await reader.resume_offset(0)

    assert _unclosed_clients(run) == []


@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("how", ["cancelled", "stopped"])
def test_a_read_cut_short_while_its_clients_start_leaves_none_open(make_settings, how, cut):
    # Regression (QA, churn): a worker stopped while an actor opened its partition logged
    # "Unclosed AIOKafkaConsumer" and "Unclosed AIOKafkaConnection" at ERROR.
    settings = make_settings()

    async def run():
        reader = await _reader(settings)
        read = asyncio.create_task(reader.resume_offset(0))
        await asyncio.sleep(cut)
        if how == "cancelled":
            read.cancel()
        else:
            await reader.stop()
        try:
            await read  # a read under way when the reader stops ends before the clients close
        except asyncio.CancelledError:
            assert how == "cancelled"
        except WindowLogError:
            assert how == "stopped"  # one not yet under way is refused
        await reader.stop()

    assert _unclosed_clients(run) == []
