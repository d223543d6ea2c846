"""patterns sample, refused for want of any pattern in the support range, says which end of the
range to move: on sparse data (BMS-WebView-1) every pattern is below the paper's 20%, on dense
data (chess) every long one can be above the range, and "widen the supports" named neither."""

from itertools import islice

from setveil.core.cli import cli


def _sample(runner, data, out, *args):
    return runner.invoke(cli, ["patterns", "sample", str(data), "-o", str(out), *args])


def test_none_at_the_least_support_says_lower_it(runner, tmp_path):
    data = tmp_path / "t.dat"
    data.write_text("A B C D\nA B C\nA B D\nA C D\nA B C\nB D\n")
    out = tmp_path / "p.txt"
    result = _sample(runner, data, out, "-n", "2", "--min-length", "4", "--max-length", "4",
                     "--min-support", "0.3", "--max-support", "1")
    assert result.exit_code == 2 and not out.exists()
    assert result.output == ("setveil: error: parameter 'n': no pattern of length 4-4 has a support of 0.3 or "
                             "more; asked for 2: lower --min-support or change the length range\n")


def test_all_above_the_greatest_support_says_raise_it(runner, tmp_path):
    # A B and A C in 4 of the 6 transactions, A D, B C and B D in 3, C D in 2: at least 40% is 3, at
    # most 45% is 2, so the five pairs of 3 or more are all above the range
    data = tmp_path / "t.dat"
    data.write_text("A B C D\nA B C\nA B D\nA C D\nA B C\nB D\n")
    out = tmp_path / "p.txt"
    result = _sample(runner, data, out, "-n", "2", "--max-length", "2", "--min-support", "0.4",
                     "--max-support", "0.45")
    assert result.exit_code == 2 and not out.exists()
    assert result.output == ("setveil: error: parameter 'n': no pattern of length 2-2 has a support in [0.4, 0.45]: "
                             "all 5 of support 0.4 or more have more than 0.45, the least 0.5; asked for 2: raise "
                             "--max-support or change the length range\n")


def test_bms_webview_1_at_the_papers_supports_says_lower_the_least(runner, datasets, tmp_path):
    data = tmp_path / "bms1.dat"
    with open(datasets / "BMS-WebView-1.dat") as lines:
        data.write_text("".join(islice(lines, 2000)))
    result = _sample(runner, data, tmp_path / "p.txt", "--seed", "1")
    assert result.exit_code == 2
    assert "no pattern of length 2-5 has a support of 0.2 or more; asked for 10: lower --min-support" in result.output
    assert _sample(runner, data, tmp_path / "p.txt", "--seed", "1", "--min-support", "0.01").exit_code == 0
