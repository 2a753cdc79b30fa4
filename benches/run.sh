#!/usr/bin/env bash
# Runs the benchmark suite (release) and writes ../BENCHMARKS.md from
# criterion's medians, with the machine and a compile-time comparison.
#
#   bash benches/run.sh            # everything (about half an hour)
#   SKIP_BENCH=1 bash benches/run.sh   # only rewrite the report from the last run
#   SKIP_COMPILE=1 bash benches/run.sh # leave out the compile- and expansion-time sections
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$root/BENCHMARKS.md"
cd "$here"

if [ -z "${SKIP_BENCH:-}" ]; then
    rm -rf target/criterion
    cargo bench --bench suite
fi
cargo build --release --quiet --bin report --bin memory --bin instructions --bin interleaved

# A crate of its own (outside any workspace) that depends on mica: DIR NAME.
new_crate() {
    mkdir -p "$1/src"
    cat >"$1/Cargo.toml" <<TOML
[package]
name = "$2"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
mica = { path = "$root" }
TOML
}

# ----- compile time: the same #[tape] functions with and without the attribute
compile_section() {
    local work="$here/target/compile-time"
    rm -rf "$work"
    mkdir -p "$work"
    local variant
    for variant in tape plain hand; do
        local dir="$work/$variant"
        new_crate "$dir" "ct-$variant"
        # seven programs of the suite, eight copies each: 56 functions
        {
            echo '#![allow(dead_code, unused_imports, clippy::all)]'
            for k in 0 1 2 3 4 5 6 7; do
                echo "pub mod m$k {"
                echo "use mica::tape;"
                echo "pub const HID: usize = 32; pub const IN: usize = 16; pub const OUT: usize = 10; pub const DT: f64 = 0.01;"
                for f in course rosenbrock logistic mlp advection ode; do
                    # the #[tape] functions only: from each `#[tape]` to its
                    # closing brace (not the one tracking a struct, which
                    # the struct benchmark measures), their reverse mode
                    # only (`#[tape(tangent, hvp)]` read as `#[tape]`)
                    awk '/^#\[tape(\(.*\))?\]/{hold="#[tape]"; next}
                         hold!=""{ if ($0 ~ /_struct\(/) { skip=1 } else { print hold; on=1 }; hold="" }
                         skip&&/^}/{skip=0; next} skip{next}
                         on{print} on&&/^}/{on=0}' "$here/src/$f.rs"
                    if [ "$variant" = hand ]; then
                        # and the hand-written adjoints of the same functions,
                        # with the helpers and the parameter struct they use
                        awk '/^(pub )?(fn [a-z_]+_hand\(|fn (update|update_reverse|toon_flux)\(|struct Params )/{on=1}
                             /^pub fn batch_hand\(/{on=0}
                             on{print} on&&/^}/{on=0}' "$here/src/$f.rs"
                    fi
                done
                echo "}"
            done
        } >"$dir/src/lib.rs"
        if [ "$variant" != tape ]; then
            sed -i -e 's/^#\[tape\]//' -e 's/#\[tracked\] //g' "$dir/src/lib.rs"
        fi
    done
    local line="| profile | with \`#[tape]\` | without | ratio | with hand-written adjoints | \`#[tape]\` ÷ hand-written |"
    echo "$line"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    local profile
    for profile in dev release dev-opt; do
        local flag=""
        [ "$profile" = release ] && flag="--release"
        local t_tape t_plain t_hand
        for variant in tape plain hand; do
            if [ "$profile" = dev-opt ]; then
                # the recommended setting: the macro itself optimised
                printf '\n[profile.dev.build-override]\nopt-level = 3\n' >>"$work/$variant/Cargo.toml"
            fi
            (cd "$work/$variant" && CARGO_TARGET_DIR="$work/target-$variant-$profile" cargo build $flag --quiet)
            local best=""
            for _ in 1 2 3; do
                touch "$work/$variant/src/lib.rs"
                local s e
                s=$(date +%s.%N)
                (cd "$work/$variant" && CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$work/target-$variant-$profile" cargo build $flag --quiet)
                e=$(date +%s.%N)
                local t
                t=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
                if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
                    best=$t
                fi
            done
            case $variant in
                tape) t_tape=$best ;;
                plain) t_plain=$best ;;
                hand) t_hand=$best ;;
            esac
        done
        [ "$profile" = dev ] && count_rustc_instructions "$work"
        local label=$profile
        [ "$profile" = dev-opt ] && label="dev, \`build-override\` opt-level 3"
        printf '| %s | %.2f s | %.2f s | %.1f× | %.2f s | %.1f× |\n' "$label" "$t_tape" "$t_plain" \
            "$(awk -v a="$t_tape" -v b="$t_plain" 'BEGIN { print a / b }')" "$t_hand" \
            "$(awk -v a="$t_tape" -v b="$t_hand" 'BEGIN { print a / b }')"
    done
    if [ -s "$work/instructions" ]; then
        echo
        echo "The instructions rustc retires in one dev build of each crate"
        echo "(callgrind, cargo's default profile; unlike the times they do not move"
        echo "between runs):"
        echo
        echo "| crate | rustc's instructions | ÷ without |"
        echo "| --- | ---: | ---: |"
        awk '{ n[$1] = $2 } END {
            split("tape plain hand", order, " ")
            label["tape"] = "`#[tape]`"; label["plain"] = "without"
            label["hand"] = "without, plus hand-written adjoints"
            for (k = 1; k <= 3; k++) {
                v = order[k]
                printf "| %s | %.2f G | %.1f× |\n", label[v], n[v] / 1e9, n[v] / n["plain"]
            }
        }' "$work/instructions"
    fi
}

# rustc's instructions (callgrind) for one dev build of each compile-time
# crate, into "$1/instructions"; nothing if valgrind is not installed
count_rustc_instructions() {
    local work=$1 variant
    command -v valgrind >/dev/null || return 0
    : >"$work/instructions"
    for variant in tape plain hand; do
        touch "$work/$variant/src/lib.rs"
        # the rustc command cargo runs for the crate itself
        local cmd
        cmd=$(cd "$work/$variant" && CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$work/target-$variant-dev" \
            cargo build -v 2>&1 | grep 'Running `.*--crate-name ct_' | tail -1 |
            sed -e 's/^ *Running `//' -e 's/`$//')
        [ -n "$cmd" ] || continue
        local count
        count=$(cd "$work/$variant" && valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            --trace-children=yes bash -c "$cmd -o $work/counted-$variant.out" 2>&1 |
            awk '/refs:/ { gsub(",", "", $NF); print $NF }' | tail -1)
        echo "$variant $count" >>"$work/instructions"
    done
}

# ----- expansion time: the macro itself on synthetic bodies, and its share of
# building a crate of the 10,000-line body
expansion_section() {
    local work="$here/target/expansion"
    rm -rf "$work"
    mkdir -p "$work"
    local log="$work/criterion.txt"
    # cargo builds a proc-macro crate's test harness for the host, and the
    # crate's dependencies (syn, proc-macro2, quote) then take the profile's
    # `build-override`, opt-level 0 by default: without this override
    # "release" would time an optimised mica-macros over an unoptimised syn
    (cd "$root" && MICA_EXPANSION_SOURCE_DIR="$work" CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OPT_LEVEL=3 \
        cargo test -p mica-macros --release --quiet --lib expansion_time -- --ignored --nocapture) \
        >"$log" 2>&1
    echo "| body | statements | median | per statement |"
    echo "| --- | ---: | ---: | ---: |"
    awk '/^expansion\// { name = $1 }
         /^ *time: +\[/ {
             s = $0; sub(/.*\[/, "", s); sub(/\].*/, "", s); split(s, f, " ")
             v = f[3]; u = f[4]
             k = (u == "ns") ? 1e-9 : (u == "s") ? 1 : (u == "ms") ? 1e-3 : 1e-6
             split(name, p, "/"); n = p[3]; body = p[2]; gsub(/_/, " ", body)
             printf "| %s | %s | %s %s | %.1f µs |\n", body, n, v, u, v * k / n * 1e6
             if (body == "straight line" && n == 10000) print v * k > "'"$work"'/median_10000"
         }' "$log"
    echo
    local variant
    for variant in tape plain tape-opt; do
        local dir="$work/$variant"
        new_crate "$dir" "et-$variant"
        echo '#![allow(dead_code, clippy::all)]' >"$dir/src/lib.rs"
        cat "$work/straight.rs" >>"$dir/src/lib.rs"
        if [ "$variant" = plain ]; then
            sed -i -e 's/^#\[tape\]//' -e 's/# \[tracked\] //g' -e 's/^use mica::tape;//' "$dir/src/lib.rs"
        fi
        if [ "$variant" = tape-opt ]; then
            # the setting the README recommends for large bodies: the macro optimised
            printf '\n[profile.dev.build-override]\nopt-level = 3\n' >>"$dir/Cargo.toml"
        fi
        # rustc's default thread stack is too small for the debug info of
        # a 10,000-line body's nested scopes (with or without `#[tape]`)
        (cd "$dir" && RUST_MIN_STACK=268435456 CARGO_TARGET_DIR="$work/target-$variant" cargo build --quiet 2>/dev/null || true)
        # best of three builds (the one with the shortest total), as for
        # the compile-time table: one build moves by a third on this machine
        local attempt best=""
        for attempt in 1 2 3; do
            touch "$dir/src/lib.rs"
            if ! (cd "$dir" && RUSTC_BOOTSTRAP=1 RUST_MIN_STACK=268435456 CARGO_INCREMENTAL=0 \
                CARGO_TARGET_DIR="$work/target-$variant" cargo rustc --quiet -- -Z time-passes) \
                >"$work/build_${variant}_$attempt.log" 2>&1; then
                echo "The crate holding the 10,000-line function did not build ($variant):"
                echo "see \`benches/target/expansion/build_${variant}_$attempt.log\`."
                return 0
            fi
            local t
            t=$(awk '/time:.*\ttotal$/ { v = $2 + 0 } END { print v }' "$work/build_${variant}_$attempt.log")
            if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
                best=$t
                cp "$work/build_${variant}_$attempt.log" "$work/build_$variant.log"
            fi
        done
    done
    et_total() { awk '/time:.*\ttotal$/ { v = $2 + 0 } END { print v }' "$work/build_$1.log"; }
    et_expand() { awk '/time:.*\texpand_crate$/ { print $2 + 0; exit }' "$work/build_$1.log"; }
    et_share() { awk -v m="$(et_expand "$1")" -v t="$(et_total "$1")" 'BEGIN { print 100 * m / t }'; }
    printf 'A crate holding only the 10,000-line function, built by rustc (dev,\n'
    printf 'dependencies prebuilt, `-Z time-passes`, `RUST_MIN_STACK=268435456`,\n'
    printf 'the fastest of three builds):\n\n'
    echo "| build | total | macro expansion | expansion's share |"
    echo "| --- | ---: | ---: | ---: |"
    printf '| without `#[tape]` | %.1f s | – | – |\n' "$(et_total plain)"
    printf '| `#[tape]`, cargo'"'"'s default (macro unoptimised) | %.1f s | %.1f s | %.1f%% |\n' \
        "$(et_total tape)" "$(et_expand tape)" "$(et_share tape)"
    printf '| `#[tape]`, `[profile.dev.build-override] opt-level = 3` | %.1f s | %.1f s | %.1f%% |\n' \
        "$(et_total tape-opt)" "$(et_expand tape-opt)" "$(et_share tape-opt)"
}

# Mica against the hand-written adjoints in turns, first: the summary
# table shows these ratios beside criterion's
MICA_TURNS_TSV="$here/target/turns.tsv" "$here/target/release/interleaved" 150 >"$here/target/turns.md"

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
{
    echo "# Benchmarks"
    echo
    echo "Mica's reverse-mode gradients against a careful hand-written adjoint, the"
    echo "primal alone, and peer Rust AD crates, on the programs of \`benches/\`."
    echo "Generated by \`bash benches/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC')."
    if [ -n "${SKIP_BENCH:-}" ]; then
        last=$(find "$here/target/criterion" -type f -printf '%T@\n' | sort -n | tail -1)
        echo "The suite's timings are criterion's of the run that ended"
        echo "$(date -u -d "@${last%.*}" '+%Y-%m-%d %H:%M UTC') (\`SKIP_BENCH=1\`)."
    fi
    echo
    echo "**Machine:** ${cpu:-unknown CPU}, $(nproc) cores; $(rustc --version)."
    echo
    echo "Machines are noisy (this one is a shared 2-core VM): only medians and"
    echo "ratios are quoted, and ratios are the numbers to compare. Every"
    echo "gradient in the suite is asserted equal to the hand-written one (within"
    echo "1e-10 relative) before it is timed, and every hand-written adjoint is"
    echo "checked against finite differences by \`cargo test\` in \`benches/\`."
    echo
    "$here/target/release/report" "$here/target/criterion" "$here/target/turns.tsv"
    echo "## Mica and the hand-written adjoint, timed in turns"
    echo
    echo "Criterion times each variant in its own run, seconds to minutes"
    echo "apart, and on this machine the same code's time drifts by more than"
    echo "the differences between the variants. Here each program's"
    echo "hand-written adjoint and Mica's \`_backward\` are timed in turns in one"
    echo "process (\`src/bin/interleaved.rs\`): 150 rounds, each a block of about"
    echo "2 ms of one and then of the other, the order swapped every round. A"
    echo "round gives one ratio from two blocks milliseconds apart; the table"
    echo "gives the median ratio and its quartiles."
    echo
    cat "$here/target/turns.md"
    echo
    echo "The runtime-tape peers, timed in turns with Mica's \`_backward\` the"
    echo "same way on Extended Rosenbrock, n = 1,000 (the target program for"
    echo "them), with blocks of about 2 ms of each:"
    echo
    "$here/target/release/interleaved" 150 peers
    echo
    echo "## Higher order"
    echo
    echo "Mica's forward mode (\`_tangent\`, against the primal) and its"
    echo "Hessian-vector products (\`_hvp\`, reverse over forward: the value, the"
    echo "gradient and H·v, against \`_backward\`), then the peers' Hessian-vector"
    echo "products against Mica's and the bundle-adjustment Jacobian block against"
    echo "one written by hand, all timed in turns as above"
    echo "(\`interleaved 150 higher\`; see the notes, *Higher order*)."
    echo
    "$here/target/release/interleaved" 150 higher
    echo "## Programs written by others"
    echo
    echo "Thirteen programs written the way their authors write them"
    echo "(\`src/outside/\`): GradBench's lse, llsq and ode, ADBench's LSTM and"
    echo "bundle-adjustment objective, k-means by selection, a 2-D heat equation"
    echo "with named indices and a double buffer, chained Rosenbrock, an RNN scan,"
    echo "a Newton solve left by \`break\`, an iterator chain, a loss written"
    echo "through helpers and a \`#[derive(Knob)]\` model. Each has a hand-written"
    echo "adjoint as a strong engineer writes it (one pass, slopes carried in"
    echo "registers), checked against finite differences and against Mica"
    echo "(\`tests/outside.rs\`). Mica's \`_backward\` against the hand adjoint and"
    echo "against the primal, each timed in turns as above"
    echo "(\`interleaved 150 outside\`):"
    echo
    "$here/target/release/interleaved" 150 outside
    echo
    echo "Instructions per gradient call of the same programs, counted as"
    echo "below (callgrind, \`instructions outside\`): they do not move from run"
    echo "to run as the timings do, but they are not times."
    echo
    "$here/target/release/instructions" outside
    echo
    cat "$here/OUTSIDE.md"
    echo
    echo "\`echidna\` 0.15, the feature-richest runtime-tape Rust AD crate,"
    echo "timed in turns against Mica's \`_backward\` on the same programs and"
    echo "Extended Rosenbrock n = 1,000 (peer/Mica, \`interleaved 150 echidna\`):"
    echo "its bytecode tape (recorded and optimised once, then replayed) and its"
    echo "eager tape (recorded on every call)."
    echo
    "$here/target/release/interleaved" 150 echidna
    echo
    cat "$here/LONG.md"
    echo
    echo "## Peak heap per gradient call"
    echo
    echo "The most heap bytes live at once during one call (dhat's testing"
    echo "mode; inputs and slots are made before the call). Mica's straight-line"
    echo "code and the loops whose reverse reads everything again allocate"
    echo "nothing; the rest is what loops keep for their reverse."
    echo
    "$here/target/release/memory"
    echo
    echo "## Instructions per gradient call"
    echo
    echo "Counted by Valgrind's callgrind inside the call only, averaged over"
    echo "five calls. Unlike the timings these do not move from run to run, so"
    echo "they show small changes; but they are not times: a vectorised loop"
    echo "retires fewer instructions for the same work, and a chain of"
    echo "dependent additions into memory costs time without costing"
    echo "instructions (see the notes)."
    echo
    "$here/target/release/instructions"
    echo
    if [ -z "${SKIP_COMPILE:-}" ]; then
        echo "## Compile time"
        echo
        echo "Building a crate of 56 \`#[tape]\` functions (the suite's seven"
        echo "programs, eight copies each) against the same source with the"
        echo "attributes removed, and against that source plus the suite's"
        echo "hand-written adjoints of the same functions (what a user without"
        echo "Mica would compile); dependencies prebuilt, best of three, no"
        echo "incremental cache."
        echo
        compile_section
        echo
    fi
    if [ -z "${SKIP_COMPILE:-}" ]; then
        echo "## Expansion time"
        echo
        echo "The expansion function itself (\`mica-macros\`, release), called"
        echo "directly by criterion on synthetic bodies: straight-line code over two"
        echo "tracked scalars (arithmetic and methods), and loop-heavy code (blocks"
        echo "of ten lines: a nested loop over a tracked slice, an array written in"
        echo "a loop, a \`while\` with carried values)."
        echo
        expansion_section
        echo
    fi
    if [ -f "$here/NOTES.md" ]; then
        cat "$here/NOTES.md"
    fi
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
