import math
import pickle

import pytest

from setveil.core.errors import ParameterError
from setveil.core.params import Parameter, listed, parse_assignments, refuse_repeats, shown_value, validate

H = Parameter("h", "breach bound", "float", low=0, high=1, low_inclusive=False)
K = Parameter("k", "cohort size", "int", low=1)
SIZE = Parameter("qid_size", "qid size", "int", default=4, low=1, choices=("all",))


@pytest.mark.parametrize("raw", ["0", "1.5", "-1", "nan", "x", ""])
def test_out_of_range_or_malformed_names_parameter_and_range(raw):
    with pytest.raises(ParameterError) as info:
        validate([H, K], {"h": raw, "k": "3"}, "model m")
    assert info.value.name == "h"
    assert "(0, 1]" in str(info.value)


def test_parsing_and_defaults():
    assert validate([H, K, SIZE], {"h": "1", "k": "3"}, "m") == {"h": 1.0, "k": 3, "qid_size": 4}
    assert validate([SIZE], {"qid_size": "all"}, "m") == {"qid_size": "all"}
    with pytest.raises(ParameterError, match="integer in \\[1, inf\\) or all"):
        validate([SIZE], {"qid_size": "2.5"}, "m")


def test_a_default_reaches_the_model_parsed_as_a_given_value_would():
    # QA: a bool's default "false" reached the model as the string, which is true
    declared = [Parameter("strict", "strict", "bool", default="false"), Parameter("m", "m", "int", default="3"),
                Parameter("share", "share", "float", default=1), Parameter("file", "file", "path", default="later.txt"),
                Parameter("cap", "cap", "int", default=None)]
    assert validate(declared, {}, "m") == {"strict": False, "m": 3, "share": 1.0, "file": "later.txt", "cap": None}
    assert type(validate(declared, {}, "m")["share"]) is float


def test_missing_and_unknown():
    with pytest.raises(ParameterError) as info:
        validate([H, K], {"h": "0.5"}, "model m")
    assert info.value.name == "k"
    assert info.value.problem == "model m needs it (cohort size; allowed: an integer in [1, inf))"
    with pytest.raises(ParameterError) as info:
        validate([H], {"h": "0.5", "hh": "1"}, "model m")
    assert info.value.name == "hh" and "its parameters: h" in str(info.value)


def test_assignments():
    assert parse_assignments(["h=0.4", " k = 20 "]) == {"h": "0.4", "k": "20"}
    for bad in (["h"], ["=3"]):
        with pytest.raises(ParameterError):
            parse_assignments(bad)
    with pytest.raises(ParameterError, match="^parameter 'k': k given more than once; give each once$"):
        parse_assignments(["k=1", "k=2"])


def test_a_list_option_takes_its_values_without_their_blanks_and_refuses_a_blank_one():
    assert listed("policies", " naive, iga\t") == ["naive", "iga"]
    with pytest.raises(ParameterError, match="^parameter 'rho': '0.3, ,0.5' is not a comma-separated list"):
        listed("rho", "0.3, ,0.5")


def test_every_list_option_refuses_a_repeat_in_one_wording_naming_the_values():
    # QA: -P, bench sanitize, bench audit and bench stream said "given twice", "names a policy
    # twice", "given more than once; give each value once" and "which repeats a value"
    refuse_repeats("window", [1000, 5000, 1000000])
    for values, shown in (([1000000, 5, 1000000], "1000000"), ([0.0, 0, 0.25, 0.25], "0, 0.25"), (["ip", "ip"], "ip"),
                           ([1000000, 5, 5, 1000000], "5, 1000000")):
        with pytest.raises(ParameterError) as refused:
            refuse_repeats("window", values)
        assert str(refused.value) == f"parameter 'window': {shown} given more than once; give each once"


@pytest.mark.parametrize("parameter, raw", [(K, "١"), (K, "٣"), (K, "３"), (K, "1\u00a0"), (H, "٠.٥"), (H, "０.5"),
                                            (K, "1_000"), (H, "0.2_5")])
def test_numbers_are_written_in_ascii_digits(parameter, raw):
    # int() and float() read other scripts' digits, and digits grouped by "_": k=١ ran with k=1
    with pytest.raises(ParameterError) as info:
        validate([parameter], {parameter.name: raw}, "model m")
    assert info.value.name == parameter.name and parameter.allowed() in str(info.value)


def test_blanks_around_a_number_stay_allowed():
    assert validate([H, K], {"h": " 0.5 ", "k": "\t3 "}, "m") == {"h": 0.5, "k": 3}


@pytest.mark.parametrize("raw, held", [("0.29999999999999999", "0.3"), ("0.99999999999999999", "1.0"),
                                       ("1.0000000000000001", "1.0"), ("0.1000000000000000055511151231257827", "0.1")])
def test_a_decimal_a_float_cannot_hold_as_typed_is_refused(raw, held):
    # Regression (QA, degenerate shapes): rho=0.29999999999999999 was compared as 3/10, so a rule
    # of confidence 3/10, above the typed bound, was released as safe
    with pytest.raises(ParameterError) as info:
        validate([H], {"h": raw}, "model m")
    assert info.value.name == "h" and f"a float holds only as {held}," in str(info.value)
    # QA: "at most 15 significant digits" alone, while 0.6666666666666666 (16) is taken
    assert str(info.value).endswith(f"; give it as {held} or with at most 15 significant digits")


def test_a_decimal_held_only_as_a_value_out_of_range_is_not_told_to_give_that_value():
    # QA: rho=0.99999999999999999 was told "give it as 1.0", which rho's range (0, 1) refuses
    rho = Parameter("rho", "bound", "float", low=0, high=1, low_inclusive=False, high_inclusive=False)
    with pytest.raises(ParameterError) as info:
        validate([rho], {"rho": "0.99999999999999999"}, "model m")
    assert str(info.value).endswith("a float holds only as 1.0, which is not allowed; give it with at most 15 "
                                    "significant digits")


@pytest.mark.parametrize("raw", ["9223372036854775807", "18446744073709551617", "-1e-400", "1.00000000000000001e3"])
def test_a_decimal_out_of_range_is_refused_with_the_range_not_its_digits(raw):
    # QA: h=9223372036854775807 was told to give it with at most 15 significant digits, which
    # leaves it out of (0, 1] all the same, and the range went unnamed
    with pytest.raises(ParameterError) as info:
        validate([H], {"h": raw}, "model m")
    assert str(info.value) == f"parameter 'h': got {raw!r}, allowed: {H.allowed()}"


@pytest.mark.parametrize("raw", ["1e-400", "4.9e-324", "1e-99999999", "0." + "0" * 5000 + "1"])
def test_a_decimal_too_small_for_a_float_is_refused_at_once(raw):
    # Regression (QA re-check): the exact comparison built a Fraction, which computed 10**99999999
    # (a hang) or refused more than 4,300 digits with a traceback
    with pytest.raises(ParameterError) as info:
        validate([Parameter("t", "threshold", "float", low=0, high=1)], {"t": raw}, "model m")
    assert "it is too small for a float (the smallest normal one is 2.2250738585072014e-308)" in str(info.value)


@pytest.mark.parametrize("raw", ["0.3", "0.30", "3e-1", "0.333333333333333", "1", "0.123456789012345", "0.3333333333333333",
                                 " 0.7 ", "1E-20"])
def test_decimals_a_float_holds_as_typed_are_taken(raw):
    assert validate([H], {"h": raw}, "m") == {"h": float(raw)}


def test_a_negative_zero_is_taken_as_zero():
    # QA: -0.0, which [0, 1] admits, reached numpy as a negative scale (an option's, bench sanitize
    # quest --corruption-variance -0.0); a parameter's is zero too
    value = validate([Parameter("psi", "threshold", "float", low=0, high=1)], {"psi": "-0.0"}, "m")["psi"]
    assert value == 0 and math.copysign(1, value) == 1


def test_an_infinite_bound_is_shown_open():
    # Regression (review): low=-math.inf, how a parameter says it takes any number, read
    # "[-inf, inf)", as if -inf were allowed
    assert Parameter("shift", "offset", "float", low=-math.inf).allowed() == "a number in (-inf, inf)"
    assert Parameter("x", "x", "float", low=0, high=math.inf).allowed() == "a number in [0, inf)"


def test_a_required_parameter_stays_required_when_pickled():
    # a model goes to a window's process pickled (model.time_limit); its sentinel default did not
    # survive, so a required parameter came back optional (QA)
    parameter = pickle.loads(pickle.dumps(Parameter("restrictive", "patterns", "path")))
    assert parameter.required and parameter == Parameter("restrictive", "patterns", "path")


def test_a_file_that_cannot_be_reached_is_not_called_missing(tmp_path):
    (tmp_path / "plain.txt").write_text("a b\n")
    with pytest.raises(ParameterError) as refused:
        Parameter("restrictive", "patterns", "path").parse(str(tmp_path / "plain.txt" / "p.txt"))
    assert str(refused.value).endswith("cannot be reached: Not a directory")
    with pytest.raises(ParameterError, match="does not exist"):
        Parameter("restrictive", "patterns", "path").parse(str(tmp_path / "missing.txt"))


def test_an_int_parameter_takes_exactly_the_64_bit_integers_docs_plugins_promises():
    # docs/plugins.md: "a value outside -2**63 to 2**63 - 1 is refused (larger than a 64-bit
    # integer) whatever low and high say"; both ends, as text and as a typed value
    anything = Parameter("shift", "offset", "int")
    for value in (2**63 - 1, -(2**63)):
        assert validate([anything], {"shift": str(value)}, "m") == {"shift": value}
        assert validate([anything], {"shift": value}, "m") == {"shift": value}
    for value in (2**63, -(2**63) - 1):
        for raw in (str(value), value):
            with pytest.raises(ParameterError) as info:
                validate([anything], {"shift": raw}, "m")
            side = "larger" if value > 0 else "smaller"
            assert str(info.value) == (f"parameter 'shift': got {raw!r}, {side} than a 64-bit integer; "
                                       "allowed: an integer in [-9223372036854775808, 9223372036854775807]")


@pytest.mark.parametrize("raw, message", [
    ("99999999999999999999", "got '99999999999999999999', larger than a 64-bit integer; "
                             "allowed: an integer in [1, 9223372036854775807]"),
    (10**20, "got 100000000000000000000, larger than a 64-bit integer; allowed: an integer in [1, 9223372036854775807]"),
    ("-99999999999999999999", "got '-99999999999999999999', allowed: an integer in [1, inf)"),
])
def test_an_int_beyond_64_bits_is_told_the_range_that_holds(raw, message):
    # QA: k=10**20 was told "allowed: an integer in [1, inf)", a range holding it, and a hugely
    # negative k was "larger than a 64-bit integer", when it is below k's own low bound
    with pytest.raises(ParameterError) as info:
        validate([K], {"k": raw}, "m")
    assert str(info.value) == f"parameter 'k': {message}"


def test_the_64_bit_range_keeps_an_open_or_finite_declared_end():
    below = Parameter("shift", "offset", "int", low=-5, high=2**70, low_inclusive=False)
    assert below.allowed(in_64_bits=True) == "an integer in (-5, 9223372036854775807]"
    assert below.allowed() == "an integer in (-5, 1180591620717411303424]"


@pytest.mark.parametrize("parameter, raw", [(K, True), (K, False), (H, True), (K, 2.5), (K, 1e300)])
def test_a_typed_value_is_a_number_of_the_kind_or_refused(parameter, raw):
    # parse() takes typed values too (a mapping given to load_settings, the Python API): a bool is
    # no number, though int(True) is 1, and an int parameter does not round 2.5 down to 2
    with pytest.raises(ParameterError) as info:
        validate([parameter], {parameter.name: raw}, "model m")
    assert info.value.name == parameter.name
    # 1e300 is an integer, within k's declared range but not 64 bits: the range that holds is named
    assert parameter.allowed(in_64_bits=raw == 1e300) in str(info.value)
    assert validate([K], {"k": 3.0}, "m") == {"k": 3}


def test_a_bool_takes_true_or_false_in_any_case_and_nothing_else():
    # docs/plugins.md: true or false, in any case (a SETVEIL_MODEL_VERIFY=True from a shell script)
    strict = Parameter("strict", "strict", "bool", default="false")
    for raw, value in (("true", True), ("FALSE", False), (" True ", True), (True, True), (False, False)):
        assert validate([strict], {"strict": raw}, "m") == {"strict": value}
    for raw in ("1", "0", "yes", "no", "", "t", 1):
        with pytest.raises(ParameterError) as info:
            validate([strict], {"strict": raw}, "model m")
        assert str(info.value) == f"parameter 'strict': got {raw!r}, allowed: true or false"


def test_a_refused_choice_names_the_parameter_and_every_choice():
    method = Parameter("method", "matching", "choice", default="mm", choices=("mm-il", "mm"))
    with pytest.raises(ParameterError) as info:
        validate([method], {"method": "MM"}, "model m")
    assert str(info.value) == "parameter 'method': got 'MM', allowed: one of mm-il, mm"
    for typed in (0, None):  # as the Python API may give it
        with pytest.raises(ParameterError, match="allowed: one of mm-il, mm$"):
            method.parse(typed)


@pytest.mark.parametrize("raw", [" all", "all ", "ALL"])
def test_a_numbers_extra_choice_is_taken_only_as_declared(raw):
    # the model gets a number in range or one of the choices as declared, never a near miss
    with pytest.raises(ParameterError, match="allowed: an integer in \\[1, inf\\) or all$"):
        SIZE.parse(raw)


def test_every_extra_choice_of_a_number_is_named_as_an_alternative():
    workers = Parameter("workers", "processes", "int", low=1, high=256, choices=("auto", "off"))
    assert workers.allowed() == "an integer in [1, 256] or auto or off"


def test_a_missing_file_is_named_in_the_error(tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(ParameterError) as info:
        validate([Parameter("restrictive", "patterns", "path")], {"restrictive": str(missing)}, "model m")
    assert str(info.value) == f"parameter 'restrictive': file {str(missing)!r} does not exist"


@pytest.mark.parametrize("raw", [5, 2.5, True, ["patterns.txt"]])
def test_a_typed_value_that_is_no_path_is_refused_by_a_file_parameter(raw):
    # a typed value, as the Python API gives one, was let out as os.fspath's TypeError
    with pytest.raises(ParameterError) as info:
        validate([Parameter("restrictive", "patterns", "path")], {"restrictive": raw}, "model m")
    assert str(info.value) == f"parameter 'restrictive': got {raw!r}, allowed: a path"


def test_an_integer_beyond_a_floats_range_is_refused_by_a_float_parameter():
    # Regression (mutation testing): float(10**400) raises OverflowError, which a TOML file's
    # integer for a float setting let out as a traceback
    with pytest.raises(ParameterError) as info:
        validate([H], {"h": 10**400}, "model m")
    assert str(info.value) == f"parameter 'h': got {10**400!r}, allowed: {H.allowed()}"


@pytest.mark.parametrize("parameter, raw, allowed", [
    (Parameter("api_token", "t", "int", low=1), "hunter2", "allowed: an integer in [1, inf), of 64 bits"),
    (Parameter("api_token", "t", "int", low=1), "9" * 30, "allowed: an integer in [1, inf), of 64 bits"),
    (Parameter("Db_PASSWORD", "p", "choice", choices=("a", "b")), "hunter2", "allowed: one of a, b"),
    (Parameter("secret_mode", "s", "bool"), "hunter2", "allowed: true or false"),
    (Parameter("token", "t", "float", low=0, high=1), "0.29999999999999999",
     "allowed: a number in [0, 1], with at most 15 significant digits"),
    (Parameter("token_file", "t", "path"), "/no/such/hunter2",
     "the file given does not exist, cannot be reached or is standard input"),
])
def test_a_parameter_named_like_a_secret_is_refused_without_its_value(parameter, raw, allowed):
    # Regression (QA): `-P api_token=hunter2` for an integer was refused with "got 'hunter2'",
    # where the startup log and the settings text mask it
    with pytest.raises(ParameterError) as info:
        validate([parameter], {parameter.name: raw}, "model m")
    message = str(info.value)
    assert info.value.name == parameter.name and allowed in message and "not shown" in message
    assert raw not in message and "hunter2" not in repr(info.value.__context__)


@pytest.mark.parametrize("raw, shown, names", [
    ("2,api_token=hunter2", "'2,api_token=***'", "(api_token)"),
    ("2 x=3, Db_PASSWORD = hun,k=ter2", "'2 x=3, Db_PASSWORD =***'", "(x, Db_PASSWORD)"),
    ("2,k=3", "'2,k=3'", "(k)"),
    ("2 api_token hunter2", "'2 api_token ***'", "(api_token)"),
    ("2 x=3 API_Token:hunter2", "'2 x=3 API_Token:***'", "(x, API_Token)"),
    ("api_token=hunter2", "'api_token=***'", "(api_token)"),
    ("2,api_token=hunter2,password=ter2", "'2,api_token=***'", "(api_token)"),
], ids=["comma syntax", "blanks and a secret", "no secret", "a secret's name without '='", "a secret's name and ':'",
        "a secret's name first", "two secrets"])
def test_a_value_holding_another_parameter_is_refused_saying_so_without_a_secrets_value(raw, shown, names):
    # Regression (QA): `-P m=2,api_token=hunter2`, the service's comma syntax typed into -P, was
    # refused quoting m's whole value, secret included; so was `-P "m=2 api_token hunter2"`, a
    # secret's name with no '=' after it, and `-P m=api_token=hunter2`, one first in the value
    with pytest.raises(ParameterError) as info:
        validate([K], {"k": raw}, "model m")
    message = str(info.value)
    assert info.value.name == "k" and f"got {shown}, which holds what looks like another parameter {names}" in message
    assert message.endswith("give each parameter its own NAME=VALUE (-P takes one each)")
    assert "hunter2" not in message and "ter2" not in message


@pytest.mark.parametrize("raw", ["/data/secret_file", "2 api_token", "token"])
def test_a_secrets_name_in_a_path_or_last_is_no_other_parameter(raw):
    # a secret's name counts as a word of its own, as parameter names are identifiers, and a path
    # is none; last in the value, nothing follows it to hide
    with pytest.raises(ParameterError) as info:
        K.parse(raw)
    assert str(info.value) == f"parameter 'k': got {raw!r}, allowed: {K.allowed()}"


@pytest.mark.parametrize("pair, name", [("api_token", "api_token"), ("api_token:hunter2", "api_token"),
                                        ("Db_PASSWORD hunter2", "Db_PASSWORD"), (":token hunter2", "***")])
def test_a_pair_without_its_equals_sign_is_not_echoed_when_it_names_a_secret(pair, name):
    # Regression (QA): `-P api_token:hunter2` was refused naming the whole text as the parameter
    with pytest.raises(ParameterError) as info:
        parse_assignments(["k=2", pair])
    assert info.value.name == name and "hunter2" not in str(info.value)
    assert str(info.value).startswith(f"parameter '{name}': expected NAME=VALUE; the text given is not shown")


@pytest.mark.parametrize("pair", ["=hunter2", " = hunter2", "=hunter2 api_token", "="],
                         ids=["bare", "blanks", "then a secret's name", "no value"])
def test_a_value_without_a_name_is_never_shown(pair):
    # Regression (QA): `-P =hunter2` was refused naming '=hunter2' as the parameter; with no name,
    # nothing says the value is not a secret
    with pytest.raises(ParameterError) as info:
        parse_assignments(["k=2", pair])
    assert info.value.name == "" and "hunter2" not in str(info.value)
    assert info.value.problem == ("the name before '=' is empty; expected NAME=VALUE (the value is not shown: it may "
                                  "be a secret)")


def test_a_parameter_not_named_like_a_secret_still_shows_what_was_given():
    with pytest.raises(ParameterError, match="got 'x', allowed: an integer in \\[1, inf\\)$"):
        K.parse("x")


def test_a_secrets_value_is_masked_where_it_is_shown_and_one_not_given_shows_as_not_given():
    assert (shown_value("api_token", "hunter2"), shown_value("DB_Password", 3)) == ("***", "***")
    assert shown_value("api_token", None) is None and shown_value("k", 5) == 5
