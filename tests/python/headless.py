"""Opens a local HTML file in headless Chromium and reports what a reader would see.

Speaks the Chrome DevTools Protocol over ``--remote-debugging-pipe`` (NUL-terminated
JSON on file descriptors 3 and 4), with the standard library only. Why not Playwright
or a websocket client: the pipe needs no extra package, no node driver matched to a
browser build, no TCP port (nothing to race for, nothing listening) and the browser
exits when the pipe closes; the protocol domains used (Target, Page, Runtime, Log,
Network) are stable across Chromium releases.

``load(path)`` returns a :class:`Page`: the console errors, uncaught exceptions, log
errors (failed resource loads), every request URL, failed requests, the result of a
JavaScript probe and a full-page PNG screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@dataclass
class Page:
    console_errors: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    log_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    probe: Any = None
    screenshot: bytes = b""

    @property
    def errors(self) -> list[str]:
        return self.console_errors + self.exceptions + self.log_errors + self.failed

    @property
    def remote_requests(self) -> list[str]:
        """Requests that would leave the machine: anything but file: and data: URLs."""
        return [u for u in self.requests if not u.startswith(("file:", "data:"))]


class _Cdp:
    def __init__(self, exe: str, profile: str) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:  # in the child: the pipe ends become fds 3 (commands) and 4 (replies)
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        args = [
            exe,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--hide-scrollbars",
            "--window-size=1200,900",
            # Belt and braces: a host name would not resolve; the test still sees every request.
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ]
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            pass_fds=(3, 4),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next = 0
        self._inbox: queue.Queue[dict | None] = queue.Queue()
        self.events: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        with os.fdopen(self._from_browser, "rb", buffering=0) as f:
            while chunk := f.read(65536):
                buf += chunk
                *msgs, buf = buf.split(b"\0")
                for m in msgs:
                    self._inbox.put(json.loads(m))
        self._inbox.put(None)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30) -> dict:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._get(deadline, method)
            if m.get("id") == self._next:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]
            self.events.append(m)

    def wait_event(self, method: str, session: str, timeout: float = 30) -> dict:
        for e in self.events:
            if e.get("method") == method and e.get("sessionId") == session:
                return e
        deadline = time.monotonic() + timeout
        while True:
            m = self._get(deadline, method)
            self.events.append(m)
            if m.get("method") == method and m.get("sessionId") == session:
                return m

    def _get(self, deadline: float, what: str) -> dict:
        try:
            m = self._inbox.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError(f"chromium did not answer {what} in time") from None
        if m is None:
            raise RuntimeError(f"chromium closed the pipe during {what}")
        return m

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        os.close(self._to_browser)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def load(path: Path, probe: str = "null", timeout: float = 60) -> Page:
    """Loads ``path`` (file://), waits for the load event and for every image to decode,
    evaluates the JavaScript expression ``probe`` (its JSON value is ``Page.probe``; it
    may be a promise) and takes a full-page screenshot."""
    if CHROMIUM is None:
        raise FileNotFoundError("no chromium on PATH")
    page = Page()
    with tempfile.TemporaryDirectory(prefix="tailor-chromium-") as profile:
        cdp = _Cdp(CHROMIUM, profile)
        try:
            target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                cdp.send(f"{domain}.enable", session=session)
            nav = cdp.send("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
            if nav.get("errorText"):
                raise RuntimeError(f"navigation failed: {nav['errorText']}")
            cdp.wait_event("Page.loadEventFired", session, timeout)
            decoded = cdp.send(
                "Runtime.evaluate",
                {
                    "expression": "Promise.allSettled([...document.images].map(i => i.decode()))"
                    ".then(r => r.map(x => x.status))",
                    "awaitPromise": True,
                    "returnByValue": True,
                },
                session=session,
            )
            page.probe = cdp.send(
                "Runtime.evaluate",
                {
                    "expression": probe,
                    "awaitPromise": True,
                    "returnByValue": True,
                },
                session=session,
            )["result"].get("value")
            size = cdp.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
            shot = cdp.send(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
                },
                session=session,
                timeout=timeout,
            )
            page.screenshot = base64.b64decode(shot["data"])
            rejected = [s for s in decoded["result"].get("value", []) if s != "fulfilled"]
            if rejected:
                page.exceptions.append(f"{len(rejected)} image(s) failed to decode")
        finally:
            cdp.close()
    for e in cdp.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            page.console_errors.append(
                " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            )
        elif m == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            page.exceptions.append(d.get("exception", {}).get("description") or d.get("text", "exception"))
        elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
            page.log_errors.append(f"{p['entry'].get('text')} {p['entry'].get('url', '')}")
        elif m == "Network.requestWillBeSent":
            page.requests.append(p["request"]["url"])
        elif m == "Network.loadingFailed":
            page.failed.append(p.get("errorText", "failed"))
    return page
