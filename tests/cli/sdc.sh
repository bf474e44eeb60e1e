#!/usr/bin/env bash
# `synthaudit sdc` on SD2011: each remediation's effect agrees with an independent count by pandas
# (synthpop's rules: replicated.uniques() and bottom.top.recoding() in R/IO.r, with R type-7
# quantiles of the confidential column as thresholds), `evaluate` runs on the remediated file,
# and bad input exits 2 with one line and leaves nothing in --out.
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/sdc.sh tests/data/sd2011
set -u

BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
DATA=${1:?give the SD2011 folder (tests/data/sd2011) as the first argument}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
DATA=$(cd "$DATA" && pwd)
PY=/usr/bin/python3

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-sdc.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CONF="$DATA/train.csv"
SYN="$DATA/train_syn.csv"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }
expect_eq() { if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1" "got '$2', expected '$3'"; fi; }

OUT="$WORK/out"
"$BIN" sdc --confidential "$CONF" --synthetic "$SYN" --out "$OUT" --missing-codes income=-8 \
  --keys sex,age,edu,marital --remove-replicated-uniques --top-code income=0.95 \
  --bottom-code age=0.05 --recode-rare edu=800:OTHER --label-synthetic >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
expect_eq "sdc exit code" "$rc" 0
[ -s "$OUT/train_syn.csv" ] && pass "remediated file written" || fail "remediated file" "missing"
[ -s "$OUT/sdc_log.txt" ] && pass "log written" || fail "log" "missing"

# Independent counts, printed as NAME=VALUE lines.
"$PY" - "$CONF" "$SYN" "$OUT/train_syn.csv" >"$WORK/expected" <<'PYEOF'
import sys
import numpy as np
import pandas as pd
conf = pd.read_csv(sys.argv[1])
syn = pd.read_csv(sys.argv[2])
out = pd.read_csv(sys.argv[3], keep_default_na=False, na_values=["NA"])
ci = conf["income"][conf["income"].notna() & (conf["income"] != -8)]
top = np.quantile(ci, 0.95, method="linear")
si = syn["income"]
print("top_threshold=%.17g" % top)
print("top_changed=%d" % ((si.notna() & (si != -8) & (si > top)).sum()))
bottom = np.quantile(conf["age"].dropna(), 0.05, method="linear")
print("bottom_changed=%d" % ((syn["age"].notna() & (syn["age"] < bottom)).sum()))
counts = conf["edu"].value_counts()
rare = [lvl for lvl in syn["edu"].dropna().unique() if counts.get(lvl, 0) < 800]
print("rare_changed=%d" % syn["edu"].isin(rare).sum())
# synthpop replicated.uniques on the recoded synthetic keys (NA pasted as "NA")
rec = syn.copy()
rec.loc[rec["age"] < bottom, "age"] = bottom
rec.loc[rec["edu"].isin(rare), "edu"] = "OTHER"
keys = ["sex", "age", "edu", "marital"]
paste = lambda d: d[keys].astype(str).agg("|".join, axis=1)
ck, sk = paste(conf), paste(rec)
cu = set(ck[ck.map(ck.value_counts()) == 1])
su = sk[sk.map(sk.value_counts()) == 1]
removed = int(su.isin(cu).sum())
print("removed=%d" % removed)
print("rows_out=%d" % (len(syn) - removed))
print("out_rows=%d" % len(out))
print("out_first_column=%s" % out.columns[0])
print("out_flag_values=%s" % ",".join(sorted(out["flag"].unique())))
oi = out["income"][out["income"].notna() & (out["income"] != -8)]
print("out_income_above=%d" % (oi > top + 1e-9 * abs(top)).sum())
removed_rows = sk.isin(su[su.isin(cu)])
print("out_minus8=%d" % (out["income"] == -8).sum())
print("kept_minus8=%d" % ((syn["income"] == -8) & ~removed_rows).sum())
print("out_age_below=%d" % (out["age"] < bottom - 1e-9).sum())
print("out_rare_left=%d" % out["edu"].isin(rare).sum())
PYEOF
get() { sed -n "s/^$1=//p" "$WORK/expected"; }
log="$OUT/sdc_log.txt"
expect_eq "top-code count" "$(sed -n 's/^top-code income .*: \([0-9]*\) values above.*/\1/p' "$log")" "$(get top_changed)"
expect_eq "bottom-code count" "$(sed -n 's/^bottom-code age .*: \([0-9]*\) values below.*/\1/p' "$log")" "$(get bottom_changed)"
expect_eq "recode-rare count" "$(sed -n 's/^recode-rare edu: .*: \([0-9]*\) values of.*/\1/p' "$log")" "$(get rare_changed)"
expect_eq "replicated uniques removed" "$(sed -n 's/^remove-replicated-uniques on [^:]*: \([0-9]*\) .*/\1/p' "$log")" "$(get removed)"
expect_eq "records in the output" "$(get out_rows)" "$(get rows_out)"
expect_eq "label column first" "$(get out_first_column)" "flag"
expect_eq "label values" "$(get out_flag_values)" "synthetic"
expect_eq "no income above the threshold" "$(get out_income_above)" "0"
expect_eq "missing code -8 left alone" "$(get out_minus8)" "$(get kept_minus8)"
expect_eq "no age below the threshold" "$(get out_age_below)" "0"
expect_eq "no rare level left" "$(get out_rare_left)" "0"

# The evaluation runs on the remediated file (the label column is ignored with a warning).
"$BIN" evaluate --quiet --confidential "$CONF" --synthetic "sdc=$OUT/train_syn.csv" \
  --missing-codes income=-8 --keys sex,age,edu --targets marital \
  --metrics ks_distance,suda2 --out "$WORK/eval" >"$WORK/eval.stdout" 2>"$WORK/eval.stderr"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "	suda2	" "$WORK/eval/results.tsv"; then
  pass "evaluate runs on the remediated file"
else
  fail "evaluate on the remediated file" "exit $rc: $(head -c 300 "$WORK/eval.stderr")"
fi

# Bad input: exit 2, one line on stderr matching the pattern, nothing in --out.
check() {
  local name=$1 pattern=$2
  shift 2
  local bad="$WORK/bad"
  rm -rf "$bad"
  # The two files, unless the case gives its own confidential file.
  local io=(--confidential "$CONF" --synthetic "$SYN")
  case " $* " in *" --confidential "*) io=(--synthetic "$SYN") ;; esac
  "$BIN" sdc --out "$bad" "${io[@]}" "$@" >/dev/null 2>"$WORK/err"
  local rc=$? lines msg
  lines=$(wc -l <"$WORK/err")
  msg=$(head -c 300 "$WORK/err" | tr '\n' ' ')
  if [ "$rc" -ne 2 ]; then
    fail "$name" "exit code $rc, expected 2 ($msg)"
  elif [ "$lines" -ne 1 ]; then
    fail "$name" "$lines stderr lines: $msg"
  elif ! grep -Eq -- "$pattern" "$WORK/err"; then
    fail "$name" "stderr does not match /$pattern/: $msg"
  elif [ -e "$bad" ] && [ -n "$(ls -A "$bad")" ]; then
    fail "$name" "left files in --out"
  else
    pass "$name  [$(sed 's/^synthaudit: error: //' "$WORK/err")]"
  fi
}
check "unknown column" "--top-code incom: no column 'incom'.*did you mean 'income'" --top-code incom=0.9
check "quantile above 1" "--top-code income: quantile '1.5' should be a number in \[0, 1\]" \
  --top-code income=1.5
check "quantile not a number" "--bottom-code age: quantile 'low'" --bottom-code age=low
check "assignment without value" "--top-code: 'income' should be COLUMN=QUANTILE" --top-code income
check "top-code a categorical column" "--top-code sex: column 'sex' is not numeric" --top-code sex=0.9
check "recode a numeric column" "--recode-rare age: column 'age' is numeric" --recode-rare age=5
check "recode count 0" "--recode-rare edu: count '0' should be a whole number >= 1" --recode-rare edu=0
check "label column exists" "--label-synthetic: the synthetic data already have a column 'sex'" \
  --label-synthetic sex
check "nothing asked" "no remediation asked for"
check "uniques without keys" "--remove-replicated-uniques needs --keys" --remove-replicated-uniques
check "unknown key" "--keys: no column 'agee'" --keys sex,agee --remove-replicated-uniques
check "missing confidential file" "nothing\.csv" --confidential "$WORK/nothing.csv" --label-synthetic
check "undeclared column in missing codes" "missing_codes\.wage" --missing-codes wage=-8 \
  --label-synthetic

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
