import time
from study_screen_helpers import study_toml, wait_until
from tests.support.loopback import Reply, loopback_server  # noqa
from workbench.studies import create_study
REPORT = "RECOMMENDATION: resist\nREASONING: precedent\nRISKS: a shutdown\nCONFIDENCE: medium"

async def test_dbg(app, loopback_server):
    loopback_server.responder = lambda b: Reply.text(" ".join(f"w{i}" for i in range(12)) + "\n\n" + REPORT, chunk_delay=0.03)
    create_study(app.db, text=study_toml("pp", conditions=("C1",), model="openai/test", api_base=loopback_server.url, extra="[architectures.C1]\nrespondents = 2\n"))
    async with app.run_test(size=(130,40)) as pilot:
        await pilot.press("3"); await pilot.pause()
        screen = app.screen
        import asyncio
        lags = []
        async def mon():
            while True:
                a = time.monotonic(); await asyncio.sleep(0.01); lags.append((round(a - t0, 2), time.monotonic() - a - 0.01))
        t0 = time.monotonic()
        task = asyncio.create_task(mon())
        await pilot.press("s")
        await wait_until(pilot, lambda: loopback_server.count >= 1)
        tp = time.monotonic()
        await pilot.press("p")
        print("paused", screen.control.paused, tp - t0)
        await pilot.pause(1.5)
        print([round(t - t0, 2) for t in loopback_server.request_times])
        print(sorted(lags, key=lambda x: -x[1])[:8])
        for e in screen.live.transcripts[next(iter(screen.live.transcripts))].entries: print(getattr(e, "title", ""), getattr(e, "status", ""))
