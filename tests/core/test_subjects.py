"""One transaction per subject (core/subjects.py): the merge the service's window.merge_subjects
and `anonymize --merge-subjects` share, worked by hand, and the command line's option on a
clinic's visits, several per patient."""

import json
import tempfile
from pathlib import Path

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from setveil.core.subjects import merge_records, merge_window, spelt_apart
from setveil.core.window import Window

from ..rho.rho_reference import unsafe_rules
from .figure1 import MODEL, PRIVATE, run

# Figure 1 of Xu et al. as nine visits: anna's two, bob's three and carl's two merge into the
# paper's T1, T2 and T4; v3 and v9, without a subject, are T3 and T5
VISITS = [("v1", "patient-anna", ["a", "c", "d"]), ("v2", "patient-bob", ["a", "b"]),
          ("v3", None, ["b", "d", "f", "x", "Hepatitis"]), ("v4", "patient-anna", ["f", "g", "Diabetes"]),
          ("v5", "patient-carl", ["b", "c", "g"]), ("v6", "patient-bob", ["c", "f", "Hepatitis"]),
          ("v7", "patient-carl", ["y", "z", "HIV"]), ("v8", "patient-bob", ["b", "f"]),
          ("v9", None, ["a", "c", "f", "g", "HIV"])]

# tid, items, subject: "u" has three records, "v" one, 7 and "7" are two subjects, tid 2 has none
RECORDS = [(1, ["a", "b"], "u"), (2, ["c"], None), (3, ["b", "d"], "u"), (4, ["e"], "v"),
           (5, ["d", "a", "f"], "u"), (6, ["g"], 7), (7, ["h"], "7")]


def test_a_subjects_records_become_one_transaction_where_its_first_record_is():
    transactions, fields = merge_records(RECORDS)
    # the union of u's items, each once, in order of first appearance (b and d come twice, a too)
    assert transactions == [["a", "b", "d", "f"], ["c"], ["e"], ["g"], ["h"]]
    assert fields == [{"tid": 1, "tids": [1, 3, 5]}, {"tid": 2}, {"tid": 4, "tids": [4]}, {"tid": 6, "tids": [6]},
                      {"tid": 7, "tids": [7]}]


def test_only_a_nil_subject_is_none_and_a_subject_compares_by_type_whichever_comes_first():
    # 0 and "" are subjects like any other (docs/batch-format.md: a record "without a subject, or
    # with a nil one" stays apart); "0" comes before 0 here, and they stay two
    transactions, fields = merge_records([(1, ["a"], 0), (2, ["b"], ""), (3, ["c"], "0"), (4, ["a", "d"], 0),
                                          (5, ["b"], ""), (6, ["e"], None)])
    assert transactions == [["a", "d"], ["b"], ["c"], ["e"]]
    assert fields == [{"tid": 1, "tids": [1, 4]}, {"tid": 2, "tids": [2, 5]}, {"tid": 3, "tids": [3]}, {"tid": 6}]


def test_a_files_window_merges_over_its_own_vocabulary():
    window = Window.from_transactions([items for _, items, _ in RECORDS], tids=[tid for tid, _, _ in RECORDS])
    merged, tids = merge_window(window, [subject for _, _, subject in RECORDS])
    assert merged.vocab is window.vocab and len(window.vocab) == 8
    assert list(merged) == [["a", "b", "d", "f"], ["c"], ["e"], ["g"], ["h"]]
    assert merged.tids == [1, 2, 4, 6, 7]
    assert tids == [[1, 3, 5], None, [4], [6], [7]]


def write_visits(folder: Path, visits, name="visits.jsonl") -> Path:
    path = folder / name
    path.write_text("".join(json.dumps({"tid": tid, **({"subject": who} if who is not None else {}), "items": items})
                            + "\n" for tid, who, items in visits))
    return path


def clinic(tmp_path) -> tuple[Path, list]:
    """The visits as JSONL, and the options of the paper's coherence run (h=0.8, k=2, p=2)."""
    (tmp_path / "private.txt").write_text(PRIVATE)
    return write_visits(tmp_path, VISITS), [*MODEL, "--sensitive", tmp_path / "private.txt"]


def test_anonymize_merges_each_patients_visits_into_one_transaction(tmp_path):
    visits, model = clinic(tmp_path)
    out, report = tmp_path / "out.jsonl", tmp_path / "r.json"
    result = run("anonymize", visits, "-o", out, *model, "--merge-subjects", "--report", report)
    assert result.exit_code == 0, result.output
    # the paper's release of Figure 1 (b, d, x, y, z suppressed), each patient where its first
    # visit is; items in the order the file first names them (a c d b x f Hepatitis g ...)
    assert out.read_text().splitlines() == [
        '{"tid": "v1", "tids": ["v1", "v4"], "items": ["a", "c", "f", "g", "Diabetes"]}',
        '{"tid": "v2", "tids": ["v2", "v6", "v8"], "items": ["a", "c", "f", "Hepatitis"]}',
        '{"tid": "v3", "items": ["f", "Hepatitis"]}',
        '{"tid": "v5", "tids": ["v5", "v7"], "items": ["c", "g", "HIV"]}',
        '{"tid": "v9", "items": ["a", "c", "f", "g", "HIV"]}']
    body = json.loads(report.read_text())
    assert (body["merge_subjects"], body["records"], body["transactions"]) == (True, 9, 5)
    assert (body["items_before"], body["items_after"]) == (27, 19)
    packed = tmp_path / "out.msgpack"
    assert run("anonymize", visits, "-o", packed, *model, "--merge-subjects").exit_code == 0
    assert list(msgpack.Unpacker(packed.open("rb")))[1] == {"tid": "v2", "tids": ["v2", "v6", "v8"],
                                                             "items": ["a", "c", "f", "Hepatitis"]}
    fimi = tmp_path / "out.dat"
    assert run("anonymize", visits, "-o", fimi, *model, "--merge-subjects").exit_code == 0
    assert fimi.read_text() == "a c f g Diabetes\na c f Hepatitis\nf Hepatitis\nc g HIV\na c f g HIV\n"
    # the note of shared subjects is for a run that does not merge them
    assert "patient" not in out.read_text() + report.read_text() + result.stderr + result.output
    assert "note" not in result.stderr


def test_subjects_that_spell_one_name_otherwise_are_counted_but_case_is_not():
    # " 7"/"7", 7/"7", an NFD and an NFC name, a zero-width space, a doubled blank: one each
    assert spelt_apart([" 7", "7", 7, "Jose\u0301", "Jos\u00e9", "ann\u200b", "ann", "a  b", "a b", None]) == 5
    # the same subject again, no subject, or another case is no other spelling
    assert spelt_apart(["7", "7", None, None, "Ann", "ann", "aB", "Ab", "", 0]) == 0


def test_anonymize_warns_of_a_patient_spelt_two_ways_and_names_no_subject(tmp_path):
    # Regression (review, task ident73): "patient-anna " and "patient-anna" were merged apart,
    # anna counted twice towards k, and the run said nothing
    visits, model = clinic(tmp_path)
    spelt = [(tid, "patient-anna " if tid == "v4" else who, items) for tid, who, items in VISITS]
    source = write_visits(tmp_path, spelt, "spelt.jsonl")
    out = tmp_path / "out.jsonl"
    result = run("anonymize", source, "-o", out, *model, "--merge-subjects")
    assert result.exit_code == 0, result.output
    # who merges them apart is anonymize itself (replay's names a worker under window.merge_subjects)
    assert result.stderr.splitlines()[0] == (
        f"setveil: warning: {source}: 1 subject spelt like another but for type, blanks or Unicode form (7 and "
        "\"7\", \" 7\" and \"7\", an NFC and an NFD \"é\"): subjects compare exactly, so each is merged apart and its "
        "person counts twice towards k; give each person one spelling")
    assert "patient" not in result.stderr and len(out.read_text().splitlines()) == 6
    # the file spelt one way, and a run that merges nothing, are not warned
    assert "warning" not in run("anonymize", visits, "-o", out, *model, "--merge-subjects").stderr
    assert "spelt like another" not in run("anonymize", source, "-o", out, *model).stderr


def test_verify_merges_the_original_as_anonymize_did(tmp_path):
    visits, model = clinic(tmp_path)
    out = tmp_path / "out.jsonl"
    assert run("anonymize", visits, "-o", out, *model, "--merge-subjects").exit_code == 0
    result = run("verify", visits, out, *model, "--merge-subjects")
    assert result.exit_code == 0 and "satisfies coherence" in result.output
    result = run("verify", visits, out, *model)
    assert result.exit_code == 2
    # its records' tids are refused as they are read, before the transactions are counted
    assert result.stderr == (f"setveil: error: {out}:1: a release's records hold 'tid' and 'items' only, as setveil "
                             "writes them, and this one holds 'tids': verify checks the items, not what another field "
                             "reveals; give --merge-subjects for a release of `anonymize --merge-subjects`\n")
    fimi = tmp_path / "out.dat"
    assert run("anonymize", visits, "-o", fimi, *model, "--merge-subjects").exit_code == 0
    result = run("verify", visits, fimi, *model)
    assert result.exit_code == 2
    assert result.stderr == (f"setveil: error: {fimi}: 5 transactions, but {visits} has 9; give --merge-subjects for a "
                             "release of `anonymize --merge-subjects`\n")
    # merging makes fewer transactions, never more: a longer release gets no such hint
    longer = tmp_path / "longer.dat"
    longer.write_text(fimi.read_text() * 2)
    result = run("verify", visits, longer, *model)
    assert result.exit_code == 2 and result.stderr == f"setveil: error: {longer}: 10 transactions, but {visits} has 9\n"
    # a release of every visit is not one of the merged patients'
    visit_release = tmp_path / "visits-out.jsonl"
    visit_release.write_text("".join(json.dumps({"tid": tid, "items": []}) + "\n" for tid, _, _ in VISITS))
    result = run("verify", visits, visit_release, *model, "--merge-subjects")
    assert result.exit_code == 2 and "9 transactions, but" in result.stderr and "patient" not in result.stderr


def _release_with(tmp_path, name: str, rows: list[dict], packed: bool = False) -> Path:
    path = tmp_path / name
    if packed:
        path.write_bytes(b"".join(msgpack.packb(row) for row in rows))
    else:
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_verify_refuses_a_release_whose_records_hold_a_field_setveil_never_writes(tmp_path):
    # Regression (stop 61's list): a release that named each transaction's patient passed verify,
    # exit 0, as the fields it does not check were ignored; setveil writes tid, items and, for
    # merged subjects, tids, and a release holding more says what no model's check covers
    visits, model = clinic(tmp_path)
    out = tmp_path / "out.jsonl"
    assert run("anonymize", visits, "-o", out, *model).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert run("verify", visits, out, *model).exit_code == 0
    named = [{**row, "subject": subject} if subject else row for row, (_, subject, _) in zip(rows, VISITS)]
    extra = [*rows[:3], {**rows[3], "patient name": "Anna"}, *rows[4:]]
    merged = [*rows[:8], {**rows[8], "tids": [rows[8]["tid"]]}]
    for release, line, what in [(_release_with(tmp_path, "named.jsonl", named), 1, "'subject'"),
                                (_release_with(tmp_path, "named.msgpack", named, packed=True), 1, "'subject'"),
                                (_release_with(tmp_path, "extra.jsonl", extra), 4, "a field setveil does not write"),
                                (_release_with(tmp_path, "merged.jsonl", merged), 9, "'tids'")]:
        result = run("verify", visits, release, *model)
        assert result.exit_code == 2, (release, result.output)
        (message,) = result.stderr.splitlines()
        assert message.startswith(f"setveil: error: {release}:{line}: a release's records hold 'tid' and 'items' only")
        assert what in message
        problem = message.removeprefix(f"setveil: error: {release}:{line}: ")
        assert not any(word in problem for word in ("patient", "anna", "Anna", "name"))
    assert "give --merge-subjects for a release of `anonymize --merge-subjects`" in message
    # a release of merged subjects holds tids too
    merged_out = tmp_path / "merged-out.jsonl"
    assert run("anonymize", visits, "-o", merged_out, *model, "--merge-subjects").exit_code == 0
    assert run("verify", visits, merged_out, *model, "--merge-subjects").exit_code == 0
    rows = [json.loads(line) for line in merged_out.read_text().splitlines()]
    named = _release_with(tmp_path, "merged-named.jsonl", [{**rows[0], "subject": "patient-anna"}, *rows[1:]])
    result = run("verify", visits, named, *model, "--merge-subjects")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"setveil: error: {named}:1: a release's records hold 'tid', 'tids' and 'items' only")
    assert "patient" not in result.stderr


def test_verify_merged_refuses_a_release_whose_tids_are_not_the_records_merged(tmp_path):
    # a merged release's tids say which records each transaction holds; read unchecked, a release
    # could credit a patient with another's visits and pass
    visits, model = clinic(tmp_path)
    out = tmp_path / "out.jsonl"
    assert run("anonymize", visits, "-o", out, *model, "--merge-subjects").exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    without = [{key: value for key, value in row.items() if key != "tids"} for row in rows]
    own = [{**row, "tids": row.get("tids", [row["tid"]])} for row in rows]
    for name, release in [("without.jsonl", without), ("own.jsonl", own)]:
        result = run("verify", visits, _release_with(tmp_path, name, release), *model, "--merge-subjects")
        assert result.exit_code == 0, result.output
    swapped = [*rows[:1], {**rows[1], "tids": ["v2", "v6", "v9"]}, *rows[2:]]
    unmerged = [*rows[:2], {**rows[2], "tids": ["v3", "v4"]}, *rows[3:]]
    shape = [{**rows[0], "tids": "v1"}, *rows[1:]]
    for name, release, line, problem in [
            ("swapped.jsonl", swapped, 2, "transaction 1's 'tids' are not the tids of the records merged into it"),
            ("swapped.msgpack", swapped, 2, "transaction 1's 'tids' are not the tids of the records merged into it"),
            ("unmerged.jsonl", unmerged, 3, "transaction 2's 'tids' are not the tids of the records merged into it"),
            ("shape.jsonl", shape, 1, "'tids' is a string, expected a list")]:
        path = _release_with(tmp_path, name, release, packed=name.endswith(".msgpack"))
        result = run("verify", visits, path, *model, "--merge-subjects")
        assert result.exit_code == 2
        assert result.stderr == f"setveil: error: {path}:{line}: {problem}\n"


def test_windows_count_the_transactions_after_merging(tmp_path):
    visits, model = clinic(tmp_path)
    report = tmp_path / "r.json"
    result = run("anonymize", visits, "-o", tmp_path / "out.jsonl", *model, "--merge-subjects", "--window", "2",
                 "--report", report)
    assert result.exit_code == 0, result.output
    # five transactions in windows of 2 at k=2: 2, then 3, as a last window of 1 joins the one
    # before it (nine visits would be windows of 2, 2, 2 and 3)
    body = json.loads(report.read_text())
    assert [window["transactions"] for window in body["per_window"]] == [2, 3]
    assert (body["windows"], body["records"], body["transactions"]) == (2, 9, 5)


def test_a_fimi_input_is_refused_before_anything_is_written(tmp_path):
    data, out = tmp_path / "fig1.dat", tmp_path / "out.dat"
    data.write_text("a b\nc d\n")
    (tmp_path / "s.txt").write_text("b\n")
    for args in (["anonymize", data, "-o", out, "-m", "rho", "-P", "rho=0.5"],
                 ["verify", data, data, "-m", "rho", "-P", "rho=0.5"]):
        result = run(*args, "--sensitive", tmp_path / "s.txt", "--merge-subjects")
        assert result.exit_code == 2
        assert result.stderr == (f"setveil: error: parameter 'merge-subjects': {data} is read as FIMI, which holds no "
                                 "subjects: give a JSONL or msgpack file whose records carry a 'subject' (--format)\n")
    assert not out.exists()


def merged_by_hand(visits) -> list[frozenset]:
    """The visits' transactions, one per subject (where its first visit is) and per lone visit."""
    order: list = []
    items: dict = {}
    for position, (_, who, labels) in enumerate(visits):
        key = ("subject", who) if who is not None else ("visit", position)
        if key not in items:
            order.append(key)
            items[key] = set()
        items[key] |= set(labels)
    return [frozenset(items[key]) for key in order]


visit_tables = st.lists(st.tuples(st.sampled_from([None, "p1", "p2", "p3", "p4", "p5"]),
                                  st.lists(st.sampled_from(["a", "b", "c", "d", "HIV", "TB"]), unique=True)),
                        max_size=16).map(lambda rows: [*rows, (None, ["HIV", "TB"])])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(visit_tables)
def test_rho_holds_per_subject_after_merging(rows):
    visits = [(f"v{position}", who, items) for position, (who, items) in enumerate(rows)]
    with tempfile.TemporaryDirectory() as folder:
        path, sensitive = write_visits(Path(folder), visits), Path(folder) / "s.txt"
        sensitive.write_text("HIV\nTB\n")
        out = Path(folder) / "out.jsonl"
        model = ["-m", "rho", "-P", "rho=0.5", "-P", "qid_size=2", "--sensitive", sensitive]
        result = run("anonymize", path, "-o", out, *model, "--merge-subjects")
        assert result.exit_code == 0, result.output
        released = [json.loads(line) for line in out.read_text().splitlines()]
        assert run("verify", path, out, *model, "--merge-subjects").exit_code == 0
    merged = merged_by_hand(visits)
    assert len(released) == len(merged)
    assert all(set(record["items"]) <= original for record, original in zip(released, merged))
    assert unsafe_rules([record["items"] for record in released], {"HIV", "TB"}, 0.5, 2) == set()
    firsts = {who: tid for tid, who, _ in reversed(visits)}
    assert [(record["tid"], record.get("tids")) for record in released] == [
        (tid, None) if who is None else (tid, [other for other, owner, _ in visits if owner == who])
        for tid, who, _ in visits if who is None or firsts[who] == tid]


def test_records_without_any_subject_are_noted_and_each_stays_a_transaction(tmp_path):
    (tmp_path / "private.txt").write_text(PRIVATE)
    lone = write_visits(tmp_path, [(tid, None, items) for tid, _, items in VISITS], "lone.jsonl")
    out = tmp_path / "out.jsonl"
    result = run("anonymize", lone, "-o", out, "-m", "rho", "-P", "rho=0.9", "--sensitive", tmp_path / "private.txt",
                 "--merge-subjects")
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"setveil: note: no record of {lone} carries a subject: each record stays a transaction "
                             "of its own\n")
    assert [json.loads(line)["tid"] for line in out.read_text().splitlines()] == [tid for tid, _, _ in VISITS]


def test_a_file_of_fewer_subjects_than_k_is_told_it_needs_subjects_not_windows(tmp_path):
    # the clinic's nine visits are five transactions merged; at k=6 no window can be safe, and the
    # models' own advice (windows of at least k transactions) is one no --window can follow
    visits, model = clinic(tmp_path)
    model[model.index("k=2")] = "k=6"
    out = tmp_path / "out.jsonl"
    result = run("anonymize", visits, "-o", out, *model, "--merge-subjects")
    assert result.exit_code == 1 and not out.exists()
    assert result.stderr == (f"setveil: error: {visits}: --merge-subjects made its 9 records 5 transactions (3 subjects, "
                             "2 records without one), fewer than the 6 model 'coherence' needs of a window, nothing "
                             "written: the guarantee is per subject, so the file needs at least 6 subjects (a record "
                             "without a subject counts as one)\n")
    assert "patient" not in result.stderr


def test_the_refusal_of_too_few_subjects_counts_in_english(tmp_path):
    # Regression (adversarial pass): one patient's two visits said "2 records 1 transactions
    # (1 subjects, ...)"
    visits = tmp_path / "visits.jsonl"
    visits.write_text('{"subject": "p", "items": ["a"]}\n{"subject": "p", "items": ["b"]}\n')
    result = run("anonymize", visits, "-o", tmp_path / "out.jsonl", "--model", "kanonymity", "-P", "k=2",
                 "--fanout", "2", "--merge-subjects")
    assert result.exit_code == 1
    assert f"{visits}: --merge-subjects made its 2 records 1 transaction (1 subject, 0 records without one), " \
           "fewer than the 2 model 'kanonymity' needs" in result.stderr


def test_verify_merged_refuses_tids_that_only_compare_equal_to_the_records_tids(tmp_path):
    # a tid is a string or an integer (records refuse true and 1.0 as a tid), but a list compares
    # true == 1 and 4.0 == 4: tids [true, 4.0] passed as the tids 1 and 4 merged into anna's
    (tmp_path / "private.txt").write_text(PRIVATE)
    numbered = [(position + 1, who, items) for position, (_, who, items) in enumerate(VISITS)]
    visits, model = write_visits(tmp_path, numbered), [*MODEL, "--sensitive", tmp_path / "private.txt"]
    out = tmp_path / "out.jsonl"
    assert run("anonymize", visits, "-o", out, *model, "--merge-subjects").exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["tids"] == [1, 4]
    for tids in ([True, 4], [1, 4.0]):
        for name in ("alike.jsonl", "alike.msgpack"):
            path = _release_with(tmp_path, name, [{**rows[0], "tids": tids}, *rows[1:]], packed=name.endswith("pack"))
            result = run("verify", visits, path, *model, "--merge-subjects")
            assert result.exit_code == 2, (tids, name, result.output)
            assert result.stderr == (f"setveil: error: {path}:1: "
                                     "transaction 0's 'tids' are not the tids of the records merged into it\n")


def test_verify_refuses_a_msgpack_release_whose_records_hold_a_field_under_a_nil_key(tmp_path):
    # msgpack's keys need not be strings: a record's patient under the key nil passed, exit 0, as
    # the search for another field gave None both for that key and for none found
    visits, model = clinic(tmp_path)
    out = tmp_path / "out.jsonl"
    assert run("anonymize", visits, "-o", out, *model).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    release = _release_with(tmp_path, "nil.msgpack", [*rows[:2], {**rows[2], None: "patient-anna"}, *rows[3:]],
                            packed=True)
    result = run("verify", visits, release, *model)
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"setveil: error: {release}:3: a release's records hold 'tid' and 'items' only, as "
                             "setveil writes them, and this one holds a field setveil does not write: verify checks "
                             "the items, not what another field reveals\n")


def test_verify_merged_refuses_tids_in_another_order_or_that_are_no_list(tmp_path):
    # a subject's tids are its records' in input order, as anonymize writes them; a tids that is
    # no list is a field of the wrong kind, named by its kind, never by its value
    visits, model = clinic(tmp_path)
    out = tmp_path / "out.jsonl"
    assert run("anonymize", visits, "-o", out, *model, "--merge-subjects").exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[1]["tids"] == ["v2", "v6", "v8"]
    cases = [(["v6", "v2", "v8"], "transaction 1's 'tids' are not the tids of the records merged into it"),
             (7, "'tids' is an integer, expected a list"), (None, "'tids' is null, expected a list"),
             ({"v2": "v6"}, "'tids' is a map, expected a list")]
    for tids, problem in cases:
        for name in ("kind.jsonl", "kind.msgpack"):
            path = _release_with(tmp_path, name, [rows[0], {**rows[1], "tids": tids}, *rows[2:]],
                                 packed=name.endswith("pack"))
            result = run("verify", visits, path, *model, "--merge-subjects")
            assert result.exit_code == 2, (tids, name, result.output)
            assert result.stderr == f"setveil: error: {path}:2: {problem}\n"


def test_verify_merged_refuses_a_release_of_more_records_by_their_count_whatever_their_tids(tmp_path):
    # a record past the merged original's transactions has no merged tids to be compared with:
    # the count says what is wrong with the release
    visits, model = clinic(tmp_path)
    out = tmp_path / "out.jsonl"
    assert run("anonymize", visits, "-o", out, *model, "--merge-subjects").exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    longer = _release_with(tmp_path, "longer.jsonl", [*rows, {"tid": "v10", "tids": ["v10", "v11"], "items": []}])
    result = run("verify", visits, longer, *model, "--merge-subjects")
    assert result.exit_code == 2, result.output
    assert result.stderr == f"setveil: error: {longer}: 6 transactions, but {visits} has 5\n"


def test_verify_names_a_records_first_field_setveil_does_not_write(tmp_path):
    visits, model = clinic(tmp_path)
    out = tmp_path / "out.jsonl"
    assert run("anonymize", visits, "-o", out, *model).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    for extra, what in [({"subject": "patient-anna", "name of": "anna"}, "'subject'"),
                        ({"name of": "anna", "subject": "patient-anna"}, "a field setveil does not write")]:
        release = _release_with(tmp_path, "two.jsonl", [{**rows[0], **extra}, *rows[1:]])
        result = run("verify", visits, release, *model)
        assert result.exit_code == 2, result.output
        assert f"and this one holds {what}: verify checks the items" in result.stderr
