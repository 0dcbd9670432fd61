"""The loopback server itself, through a real HTTP client (httpx, as the SDKs use)."""

from __future__ import annotations

import httpx2 as httpx

from .loopback import DISCONNECT, LoopbackServer, Reply, json_reply, sse


async def test_it_records_requests_and_streams_pieces_in_order():
    replies = [Reply(200, sse([{"n": 1}, {"n": 2}], done=True)), json_reply(429, {"e": 1})]
    async with LoopbackServer(replies) as server, httpx.AsyncClient() as client:
        first = await client.post(f"{server.url}/v1/x", json={"q": 1})
        second = await client.post(f"{server.url}/v1/x", json={"q": 2})
    assert first.text == 'data: {"n": 1}\n\ndata: {"n": 2}\n\ndata: [DONE]\n\n'
    assert second.status_code == 429
    assert [r.json() for r in server.requests] == [{"q": 1}, {"q": 2}]
    assert server.requests[0].path == "/v1/x"


async def test_a_disconnect_cuts_the_body():
    replies = [Reply(200, [b"data: 1\n\n", DISCONNECT])]
    error: Exception | None = None
    async with LoopbackServer(replies) as server, httpx.AsyncClient() as client:
        try:
            await client.post(server.url, json={})
        except httpx.HTTPError as exc:
            error = exc
    assert isinstance(error, httpx.RemoteProtocolError | httpx.ReadError)
