"""rho's t_max note writes eq. 8's floor so that its arithmetic holds as written (it
wrote 2^3.0/3.0 = 3 for 2.67)."""

import pytest

from setveil.core.cli import cli


@pytest.mark.parametrize("rows, t_max, arithmetic", [
    (["a b c"] * 25, "2", "hold 3.0 items on average, so every part costs at least 2^3.0/3.0 = 2.67 > t_max=2"),
    # a mean of 2.96 written 3.0 would make 2^3.0/3.0 = 2.63, which it is not
    (["a b c"] * 24 + ["a b"], "2.5", "hold 2.96 items on average, so every part costs at least 2^2.96/2.96 = 2.63 "
                                      "> t_max=2.5"),
    ([" ".join(f"i{j}" for j in range(22)) + " c"] * 3, "500",
     "hold 23.0 items on average, so every part costs at least 2^23.0/23.0 = 364,722 > t_max=500"),
    # 364,722.09 rounded to 364,722 would not be more than t_max
    ([" ".join(f"i{j}" for j in range(22)) + " c"] * 3, "364722",
     "hold 23.0 items on average, so every part costs at least 2^23.0/23.0 = 364,722.1 > t_max=364722 (eq. 8)"),
])
def test_the_t_max_note_writes_arithmetic_that_holds(runner, tmp_path, rows, t_max, arithmetic):
    data, sensitive = tmp_path / "in.dat", tmp_path / "sensitive.txt"
    data.write_text("".join(row + "\n" for row in rows))
    sensitive.write_text("c\n")
    result = runner.invoke(cli, ["verify", str(data), str(data), "-m", "rho", "-P", "rho=0.5", "-P", f"t_max={t_max}",
                                 "--sensitive", str(sensitive)])
    assert f"setveil: note: the transactions of {data} {arithmetic}" in result.stderr


def test_the_t_max_note_bounds_a_floor_past_a_float_by_a_power_of_ten(runner, tmp_path):
    # Regression (hostile-input pass): records of 25,001.5 items on average read 2^25001.5/25001.5 = inf
    data, sensitive = tmp_path / "in.dat", tmp_path / "sensitive.txt"
    data.write_text(" ".join(f"i{j}" for j in range(1099)) + " c\n" + " ".join(f"i{j}" for j in range(1100)) + "\n")
    sensitive.write_text("c\n")
    result = runner.invoke(cli, ["verify", str(data), str(data), "-m", "rho", "-P", "rho=0.5", "-P", "qid_size=1",
                                 "--sensitive", str(sensitive)])
    # 2^1100/1100 is 1.2e328
    assert (f"setveil: note: the transactions of {data} hold 1100.0 items on average, so every part costs at least "
            "2^1100.0/1100.0 > 10^328 > t_max=500 (eq. 8)") in result.stderr
