"""Every harness format on its recorded streams (tests/fixtures/streams): the exact figures, ``None`` where the
stream says nothing, the failure class, the figures refused; fed in small chunks, as a pipe delivers them."""

import json

import pytest

from conftest import FIXTURES
from scbench.harness.failures import classify
from scbench.harness.formats import FORMATS
from scbench.harness.prices import price_of, prices
from scbench.harness.stream import LINE_LIMIT, Meter

STREAMS = FIXTURES / "streams"
MODELS = {"claude-code": "claude-sonnet-4-5", "codex": "gpt-5.1-codex", "gemini-cli": "gemini-2.5-pro",
          "opencode": "anthropic/claude-sonnet-4-5", "aider": "anthropic/claude-sonnet-4-5"}
KEYS = ("input", "cached_input", "cache_write", "output", "reasoning", "reported", "computed", "spend", "turns",
        "tool_calls", "failure")
AUTH_403 = 'API Error: 403 {"type":"error","error":{"type":"permission_error","message":"Request not allowed"}}'
EXPECTED = {
    "claude-code.success.jsonl": (8, 28000, 4300, 290, None, 0.028899, 0.028899, 0.028899, 3, 1, None),
    "claude-code.killed.jsonl": (8, 28000, 4300, 290, None, None, 0.028899, 0.028899, None, 1, None),
    "claude-code.api_error.jsonl": (0, 0, 0, 0, None, 0, 0, 0, 1, None, ("authentication", AUTH_403)),
    "claude-code.rate_limit.jsonl": (0, 0, 0, 0, None, 0, 0, 0, 1, None, (
        "rate_limit", "429 API Error: Request rejected (429) · This request would exceed the rate limit for your "
                      "organization")),
    "claude-code.no_credentials.jsonl": (0, 0, 0, 0, None, 0, 0, 0, 1, None, (  # recorded from the real CLI 2.0.51
        "authentication", "Invalid API key · Please run /login")),
    "claude-code.malformed.jsonl": (None, None, 1000, 100, None, None, 0.00525, 0.00525, None, None, None),
    "codex.success.jsonl": (6000, 44000, None, 2600, 900, None, 0.039, 0.039, 2, 1, None),
    "codex.killed.jsonl": (4000, 20000, None, 1500, 600, None, 0.0225, 0.0225, 1, 1, None),
    "codex.api_error.jsonl": (None, None, None, None, None, None, None, None, None, None, (
        "authentication", "unexpected status 401 Unauthorized: Incorrect API key provided")),
    "codex.rate_limit.jsonl": (None, None, None, None, None, None, None, None, None, None, (
        "rate_limit", "exceeded retry limit, last status: 429 Too Many Requests")),
    "codex.no_network.jsonl": (None, None, None, None, None, None, None, None, None, None, (  # the real CLI 0.74.0
        "infrastructure", "stream disconnected before completion: error sending request for url "
                          "(https://api.openai.com/v1/responses)")),
    "codex.malformed.jsonl": (1000, None, None, 120, None, None, 0.00245, 0.00245, 4, None, None),
    "gemini-cli.success.jsonl": (16000, 12000, None, 2500, None, None, 0.04872, 0.04872, None, 3, None),
    "gemini-cli.killed.jsonl": (None,) * 10 + (None,),
    "gemini-cli.api_error.jsonl": (0, None, None, 0, None, None, 0, 0, None, 0, (
        "authentication", "ApiError [API Error: 403 Permission denied: API key not valid. Please pass a valid API "
                          "key.]")),
    "gemini-cli.malformed.jsonl": (None, None, None, None, None, None, None, None, None, 2, None),
    "opencode.success.jsonl": (2100, 23000, 1700, 380, 0, 0.025275, 0.025275, 0.025275, 2, 1, None),
    "opencode.killed.jsonl": (2000, 10000, 1500, 300, 0, 0.019125, 0.019125, 0.019125, 1, 1, None),
    "opencode.api_error.jsonl": (None,) * 10 + (("rate_limit", "APIError 429 Rate limit exceeded, please retry "
                                                               "later"),),
    "opencode.malformed.jsonl": (100, None, None, 30, None, None, 0.00075, 0.00075, 3, None, ("agent_error", "error")),
    "aider.success.txt": (4100, 5300, 1200, 777, None, 0.03, 0.030045, 0.030045, 2, None, None),
    "aider.killed.txt": (1300, 2000, 1200, 567, None, 0.02, 0.017505, 0.02, 1, None, None),
    "aider.api_error.txt": (None,) * 10 + (("authentication", 'litellm.AuthenticationError: AnthropicException - '
                            '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'),),
    "aider.malformed.txt": (100, None, None, 10, None, 0.01, 0.00045, 0.01, 1, None, None),
}
REFUSED = {
    "claude-code.malformed.jsonl": ["assistant usage input: 'many'", "assistant usage cached_input: '-5'",
                                    "result total_cost_usd: 'nan'", "turns: 'two'", "result total_cost_usd: '-3.5'",
                                    "result total_cost_usd: 'True'"],
    "codex.malformed.jsonl": ["turn.completed usage cached_input: 'lots'", "turn.completed usage output: 'inf'",
                              "turn.completed usage input: '99999999999999999999999999999999999999999999'"],
    "gemini-cli.malformed.jsonl": ["result stats input: '28000'", "result stats output: '-1'"],
    "opencode.malformed.jsonl": ["step_finish cost: '-2'", "step_finish tokens input: '[]'",
                                 "step_finish cost: '0.5'"],
}


def tally_of(path, model, chunk=7):
    meter, data = Meter(path.name.split(".")[0], model), path.read_bytes()
    for start in range(0, len(data), chunk):
        meter.feed(data[start:start + chunk])
    return meter.close()


def figures(tally):
    return (*tally.tokens().values(), tally.reported(), tally.computed(), tally.spend(), tally.turns,
            tally.tool_calls, tally.failure)


def test_every_recorded_stream_has_its_expectation():
    assert sorted(path.name for path in STREAMS.iterdir() if path.name != "README.md") == \
        sorted([*EXPECTED, "opencode.unpriced.jsonl"])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_recorded_stream_gives_its_exact_figures_and_failure_class(name):
    tally = tally_of(STREAMS / name, MODELS[name.split(".")[0]])
    assert dict(zip(KEYS, figures(tally), strict=True)) == dict(zip(KEYS, EXPECTED[name], strict=True))
    assert tally.refused == REFUSED.get(name, [])


@pytest.mark.parametrize("chunk", [1, 64, 1 << 20])
def test_the_figures_do_not_depend_on_how_the_stream_is_cut_into_chunks(chunk):
    assert figures(tally_of(STREAMS / "claude-code.success.jsonl", "claude-sonnet-4-5", chunk)) == \
        EXPECTED["claude-code.success.jsonl"]


def test_claude_code_reports_its_version_and_the_events_the_model_it_used():
    tally = tally_of(STREAMS / "claude-code.success.jsonl", None)
    assert (tally.version, tally.computed()) == ("2.0.51", 0.028899)


def test_a_zero_cost_for_tokens_opencode_cannot_price_is_unknown_not_free():
    tally = tally_of(STREAMS / "opencode.unpriced.jsonl", "local/qwen-coder")
    assert (tally.tokens()["input"], tally.reported(), tally.computed(), tally.spend()) == (700, None, None, None)
    assert tally_of(STREAMS / "opencode.unpriced.jsonl", "anthropic/claude-sonnet-4-5").spend() == 0.00285


def test_a_later_lower_figure_never_lowers_the_spend():
    meter = Meter("claude-code", "claude-sonnet-4-5")
    for cost in (5, 0, 2):
        meter.feed(json.dumps({"type": "result", "total_cost_usd": cost}).encode() + b"\n")
    assert meter.close().spend() == 5
    codex = Meter("codex", "gpt-5.1")
    for tokens in (8000, 0):
        codex.feed(json.dumps({"type": "turn.completed", "usage": {"input_tokens": tokens}}).encode() + b"\n")
    assert (codex.tally.tokens()["input"], codex.close().spend()) == (8000, 0.01)


def test_claude_code_messages_are_counted_once_per_message_id_and_priced_as_they_arrive():
    meter = Meter("claude-code", "claude-sonnet-4-5")
    message = {"type": "assistant", "message": {"id": "m1", "model": "claude-opus-4-5-20251101",
                                                "usage": {"input_tokens": 1000, "output_tokens": 2000}}}
    for _ in range(3):
        meter.feed(json.dumps(message).encode() + b"\n")
    assert meter.read(lambda tally: tally.spend()) == 0.055


def test_lines_too_long_or_too_deep_are_passed_over_and_the_next_event_is_read():
    meter = Meter("claude-code", "claude-sonnet-4-5")
    meter.feed(b"x" * (LINE_LIMIT + 10))
    meter.feed(b'{"type": "result", "total_cost_usd": 9}\n')  # the end of the long line: passed over
    meter.feed(b"{" + b"[" * 100_000 + b"\n")
    meter.feed(b'{"type": "result", "total_cost_usd": 1.5}')
    assert meter.close().spend() == 1.5


@pytest.mark.parametrize(("message", "expected"), [
    ("429 Too Many Requests", "rate_limit"), ("insufficient_quota: You exceeded your current quota", "quota"),
    ("Your credit balance is too low", "quota"), ("401 Unauthorized", "authentication"),
    ("ProviderAuthError", "authentication"), ("529 Overloaded", "infrastructure"),
    ("fetch failed: ECONNRESET", "infrastructure"), ("SyntaxError in the agent's own tool", "agent_error")])
def test_error_messages_are_classified(message, expected):
    assert classify(message) == expected


def test_prices_cover_every_model_slopcodebench_ships_and_know_how_providers_count_input():
    assert {name for name in ("claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "gpt-5", "gpt-5.1-codex",
                              "gemini-2.5-pro", "gemini-3-pro-preview", "glm-4.6", "kimi-k2-thinking", "o3")
            if name in prices()} == {"claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "gpt-5",
                                     "gpt-5.1-codex", "gemini-2.5-pro", "gemini-3-pro-preview", "glm-4.6",
                                     "kimi-k2-thinking", "o3"}
    assert (price_of("anthropic/sonnet-4.5").input_includes_cached, price_of("gpt-5").input_includes_cached) == \
        (False, True)
    assert price_of("no-such-model") is None and price_of(None) is None


def test_every_format_is_a_row_of_the_table():
    assert sorted(FORMATS) == ["aider", "claude-code", "codex", "gemini-cli", "none", "opencode"]


def test_an_error_a_harness_recovers_from_is_no_failure():
    gemini = Meter("gemini-cli", "gemini-2.5-pro")
    gemini.feed(b'{"type": "error", "severity": "error", "message": "429 Too Many Requests"}\n')
    assert gemini.read(lambda tally: tally.failure) == ("rate_limit", "429 Too Many Requests")
    gemini.feed(b'{"type": "result", "status": "success", "stats": {"input_tokens": 10, "output_tokens": 1}}\n')
    assert gemini.close().failure is None
    codex = Meter("codex", "gpt-5")
    codex.feed(b'{"type": "error", "message": "stream disconnected"}\n{"type": "turn.completed", "usage": {}}\n')
    assert codex.close().failure is None


def test_claude_codes_turn_limit_is_a_turn_limit():
    meter = Meter("claude-code", "claude-sonnet-4-5")
    meter.feed(b'{"type": "result", "subtype": "error_max_turns", "is_error": false, "num_turns": 101, '
               b'"total_cost_usd": 1.25}\n')
    tally = meter.close()
    assert (tally.failure, tally.turns, tally.spend()) == (("turn_limit", "error_max_turns"), 101, 1.25)
