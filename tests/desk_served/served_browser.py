"""Headless Chromium (Debian's `chromium` and `chromium-driver`, which .ci/run installs) driven by selenium,
recording everything it receives: each response's body and each websocket frame (Chrome's performance log).

Missing Chromium fails the test that needs it: CI installs it, so a browser test that could not run is a
failure, never a skip.
"""

from __future__ import annotations

import base64
import json
import shutil
import tempfile

import pytest

from served import screen_text

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,860"]
WAIT = 30  # seconds: the longest any one expected screen may take on a loaded CI machine


def require_chromium() -> tuple[str, str]:
    """Debian's chromium and its driver, or the test fails saying how to install them."""
    found = {name: shutil.which(name) for name in ("chromium", "chromedriver")}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        pytest.fail(f"{' and '.join(missing)} not installed: the served desk is tested in a real browser "
                    "(`apt-get install -y chromium chromium-driver`, as .ci/run does)")
    return found["chromium"], found["chromedriver"]


class Browser:
    """One browser with a fresh profile; `received` holds every response body and websocket frame."""

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        chromium, driver = require_chromium()
        self.profile = tempfile.mkdtemp(prefix="desk-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in FLAGS + [f"--user-data-dir={self.profile}"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(driver))
        self.frames: list[bytes] = []        # websocket frames received, in order
        self.sent: list[str] = []            # websocket frames sent (the keys)
        self.bodies: dict[str, bytes] = {}   # url -> body of every response
        self.statuses: dict[str, int] = {}
        self._pending: list[tuple[str, str]] = []

    def open(self, url: str) -> None:
        self.driver.get(url)

    def drain(self) -> None:
        """Move what the browser logged since the last call into `frames`, `sent` and `bodies`."""
        for entry in self.driver.get_log("performance"):  # (the browser's own chrome:// pages left out)
            message = json.loads(entry["message"])["message"]
            method, params = message["method"], message.get("params", {})
            if method == "Network.webSocketFrameReceived":
                frame = params["response"]
                data = frame["payloadData"]
                self.frames.append(base64.b64decode(data) if frame.get("opcode") == 2 else data.encode())
            elif method == "Network.webSocketFrameSent":
                self.sent.append(params["response"]["payloadData"])
            elif method == "Network.responseReceived" and params["response"]["url"].startswith("http"):
                self.statuses[params["response"]["url"]] = params["response"]["status"]
                self._pending.append((params["requestId"], params["response"]["url"]))
            elif method == "Network.loadingFinished":
                for request_id, url in [p for p in self._pending if p[0] == params["requestId"]]:
                    self._pending.remove((request_id, url))
                    body = self.driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": request_id})
                    raw = body["body"]
                    self.bodies[url] = base64.b64decode(raw) if body.get("base64Encoded") else raw.encode()

    def text(self) -> str:
        self.drain()
        return screen_text(b"".join(self.frames))

    def wait_for(self, words: str, after: int = 0) -> int:
        """Wait until the desk has written `words` (after text offset `after`); returns the offset past it."""
        from selenium.webdriver.support.ui import WebDriverWait

        def found(_):
            at = self.text().find(words, after)
            return at + len(words) if at >= 0 else False

        try:
            return WebDriverWait(self.driver, WAIT, poll_frequency=0.1).until(found)
        except Exception:
            raise AssertionError(f"the desk never showed {words!r}; it showed:\n{self.text()[after:][-3000:]}")

    def type(self, keys: str) -> None:
        """Keys into the terminal, key by key, as a rater types them. The focus goes to xterm.js's input without
        a click: a click would reach the desk too, as a mouse event on whatever lies under it."""
        from selenium.webdriver.common.action_chains import ActionChains

        self.driver.execute_script("document.querySelector('.xterm-helper-textarea').focus()")
        for key in keys:
            ActionChains(self.driver).send_keys(key).perform()

    def received(self, skip: set[str] = frozenset()) -> str:
        """Every byte received but the bodies of the URLs in `skip`, as text: the bodies, the frames raw, and
        the frames as the screen shows them."""
        self.drain()
        bodies = [body for url, body in self.bodies.items() if url not in skip]
        raw = b"\n".join([*bodies, *self.frames]).decode("utf-8", "replace")
        return raw + "\n" + screen_text(b"".join(self.frames))

    def quit(self) -> None:
        try:
            self.drain()
        finally:
            self.driver.quit()
            shutil.rmtree(self.profile, ignore_errors=True)
