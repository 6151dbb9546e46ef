"""The API key rule on its own (:mod:`vlc_harness.kit.api_keys`): names, bindings, ports, https."""

from __future__ import annotations

import pytest

from vlc_harness.kit.api_keys import key_for
from vlc_harness.params import ParamError

LAB = {"VLC_API_KEY_LAB_HOSTS": "api.lab.example, 127.0.0.1:8000, [::1]:9000"}


@pytest.mark.parametrize(
    "name, url, expected",
    [
        ("OPENAI_API_KEY", "https://api.openai.com/v1", True),
        ("OPENAI_API_KEY", "http://127.0.0.1:8000/v1", False),  # a local server: no key at all
        ("OPENAI_API_KEY", "http://localhost/v1", False),
        ("VLC_API_KEY_LAB", "https://api.lab.example/v1", True),
        ("VLC_API_KEY_LAB", "https://API.LAB.example:8443/v1", True),  # a host alone binds all its ports
        ("VLC_API_KEY_LAB", "http://127.0.0.1:8000/v1", True),  # over http only to this machine
        ("VLC_API_KEY_LAB", "http://[::1]:9000/v1", True),
    ],
)
def test_what_is_sent(name, url, expected):
    assert key_for(name, url, LAB) is expected


@pytest.mark.parametrize(
    "name, url, key, problem",
    [
        ("NIGHTLY_DEPLOY_SECRET", "https://api.openai.com/v1", "run.api_key_env", "is not an API key variable"),
        ("GITHUB_TOKEN", "http://127.0.0.1:8000/v1", "run.api_key_env", "is not an API key variable"),
        ("VLC_API_KEY_LAB_HOSTS", "https://api.lab.example/v1", "run.api_key_env", "not an API key"),
        ("vlc_api_key_lab", "https://api.lab.example/v1", "run.api_key_env", "not an API key"),
        ("VLC_API_KEY_", "https://api.lab.example/v1", "run.api_key_env", "not an API key"),
        ("OPENAI_API_KEY", "https://api.openai.com.evil.example/v1", "params.base_url", "not bound to $OPENAI_API_KEY"),
        ("VLC_API_KEY_LAB", "https://evil.example/v1", "params.base_url", "not bound to $VLC_API_KEY_LAB"),
        ("VLC_API_KEY_LAB", "http://127.0.0.1:8001/v1", "params.base_url", "'127.0.0.1:8001' is not bound"),
        ("VLC_API_KEY_LAB", "http://api.lab.example/v1", "params.base_url", "https only"),
        ("VLC_API_KEY_OTHER", "https://api.lab.example/v1", "params.base_url", "VLC_API_KEY_OTHER_HOSTS="),
        ("VLC_API_KEY_LAB", "file:///etc/passwd", "params.base_url", "not an http(s) URL"),
        ("VLC_API_KEY_LAB", "https://api.lab.example:99999/v1", "params.base_url", "not an http(s) URL"),
    ],
)
def test_what_is_refused(name, url, key, problem):
    with pytest.raises(ParamError) as raised:
        key_for(name, url, LAB)
    assert raised.value.path == key and problem in raised.value.problem


def test_the_environment_cannot_rebind_the_openai_key():
    with pytest.raises(ParamError, match="bound in code"):
        key_for("OPENAI_API_KEY", "https://evil.example/v1", {"OPENAI_API_KEY_HOSTS": "evil.example"})
