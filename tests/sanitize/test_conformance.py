from setveil.testing import ConformanceSuite


class TestSanitizeConformance(ConformanceSuite):
    model = "sanitize"

    @classmethod
    def prepare(cls, folder):
        def write(name, *lines):
            path = folder / name
            path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            return str(path)

        restrictive = write("restrictive.txt", "p0 p1", "p1 p2 p3", "p2 s0", "p4 p5 p6 p7", "s1 s2")
        cls.params = {"restrictive": restrictive, "psi": "0.3"}
        # p0 p1 is held by its one sensitive transaction, more than a share 0.3 of them
        cls.unsafe_windows = [[["p0", "p1"], ["p2"]]]
        cls.safe_windows = [[["p0"], ["p1", "p2"], ["p2", "p3"]]]
        cls.invalid_params = [
            {"psi": "-0.1"},
            {"psi": "1.5"},
            {"psi": "half"},
            {"sigma": "0"},
            {"sigma": "2"},
            {"restrictive": str(folder / "missing.txt")},
            {"restrictive": write("one-item.txt", "p0 p1", "p2")},
            {"restrictive": write("repeated.txt", "p0 p1 p0")},
            {"restrictive": write("empty.txt", "")},
        ]
