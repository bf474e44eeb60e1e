#!/usr/bin/python3
"""Independent pandas/numpy transcriptions of the key-disclosure measures, for golden values.

Run with Debian's python3 (not the pyenv one) from this directory:
    /usr/bin/python3 make_golden.py
It writes small CSV inputs (conf_*.csv, syn_*.csv) and golden.json, which
tests/unit/key_disclosure_test.cpp reads. Nothing here is shared with the C++ code: every measure
is written the direct way (record loops, dictionaries, pandas tables keyed by pasted strings), the
way the references (seed 002's R code, synthpop's disclosure(), SDMetrics' CAPAttacker, seed 001)
write them.
"""
import json
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
MISSING = "Missing"  # synthpop's tomissing(): NA becomes the level "Missing"


def as_levels(df, cols):
    """Every value as a string level, NA as its own level (synthpop / seed convention)."""
    out = pd.DataFrame(index=df.index)
    for c in cols:
        col = df[c]
        if pd.api.types.is_numeric_dtype(col):
            s = col.map(lambda v: MISSING if pd.isna(v) else repr(float(v)))
        else:
            s = col.map(lambda v: MISSING if pd.isna(v) else str(v))
        out[c] = s
    return out


# ---------------------------------------------------------------- synthpop disclosure()
def synthpop_disclosure(orig, syn, keys, target, denom_lim=5, exclude_ov_denom_lim=False,
                        not_targetlev=None, usetargetNA=True, usekeysNA=True,
                        exclude_keys=(), exclude_keylevs=(), exclude_targetlevs=()):
    """Transcription of synthpop's disclosure.synds (bnowok/synthpop R/disclosure.R, the version
    with attrib = Dorig..DiSDiO, max_denom, mean_denom and allCAPs = baseCAPd..TCAP)."""
    if isinstance(usekeysNA, bool):
        usekeysNA = [usekeysNA] * len(keys)
    keys = [k for k in orig.columns if k in keys]  # synthpop puts keys in data order
    dd = as_levels(orig, keys + [target])
    ss = as_levels(syn, keys + [target])
    dd["keys"] = dd[keys].agg(" | ".join, axis=1)
    ss["keys"] = ss[keys].agg(" | ".join, axis=1)
    Nd, Ns = len(dd), len(ss)
    tab_ktd = pd.crosstab(dd[target], dd["keys"])
    tab_kts = pd.crosstab(ss[target], ss["keys"])
    Ks = set(tab_kts.columns)
    allK = sorted(set(tab_ktd.columns) | set(tab_kts.columns))
    allT = sorted(set(tab_ktd.index) | set(tab_kts.index))
    tab_ktd = tab_ktd.reindex(index=allT, columns=allK, fill_value=0).astype(float)
    tab_kts = tab_kts.reindex(index=allT, columns=allK, fill_value=0).astype(float)

    def props(t):
        s = t.sum(axis=0)
        p = t / s.replace(0, np.nan)
        return p.fillna(0.0)

    pd_ = props(tab_ktd)
    ps_ = props(tab_kts)
    tab_td = tab_ktd.sum(axis=1)
    did = tab_ktd.where(pd_ == 1, 0.0)
    dis = tab_kts.where(ps_ == 1, 0.0)
    keys_syn = tab_kts.sum(axis=0)
    tab_iS = tab_ktd.copy()
    tab_iS.loc[:, keys_syn == 0] = 0.0
    tab_DiS = tab_ktd.copy()
    anydis = (ps_ == 1).any(axis=0)
    tab_DiS.loc[:, ~anydis] = 0.0
    tab_DiSCO = tab_iS.where(ps_ == 1, 0.0)
    tab_DiSDiO = tab_DiSCO.where(pd_ == 1, 0.0)
    orig_target_has_missing = (dd[target] == MISSING).any()

    def exclude(xx):
        xx = xx.copy()
        total = xx.values.sum()
        if not_targetlev:
            xx.loc[xx.index.isin(not_targetlev), :] = 0.0
        if not usetargetNA and orig_target_has_missing:
            xx.loc[xx.index == MISSING, :] = 0.0
        for i in range(len(keys)):
            if not usekeysNA[i]:
                drop = [k.split(" | ")[i] == MISSING for k in xx.columns]
                xx.loc[:, drop] = 0.0
        for key, klev, tlev in zip(exclude_keys, exclude_keylevs, exclude_targetlevs):
            kind = keys.index(key)
            kout = [k.split(" | ")[kind] == klev for k in xx.columns]
            xx.loc[xx.index == tlev, kout] = 0.0
        if exclude_ov_denom_lim:
            xx = xx.where(~(xx > denom_lim), 0.0)
        return xx, total - xx.values.sum()

    tab_ktd, excl_d = exclude(tab_ktd)
    tab_kts, excl_s = exclude(tab_kts)
    did, _ = exclude(did)
    dis, _ = exclude(dis)
    tab_iS, _ = exclude(tab_iS)
    tab_DiS, _ = exclude(tab_DiS)
    tab_DiSCO, _ = exclude(tab_DiSCO)
    tab_DiSDiO, _ = exclude(tab_DiSDiO)

    tab_ks = tab_kts.sum(axis=0)
    tab_kd = tab_ktd.sum(axis=0)
    r = {}
    r["UiS"] = (tab_ks == 1).sum() / Ns * 100
    r["UiO"] = (tab_kd == 1).sum() / Nd * 100
    r["UiOiS"] = ((tab_kd == 1) & tab_kd.index.isin(Ks)).sum() / Nd * 100
    r["repU"] = ((tab_ks == 1) & (tab_kd == 1)).sum() / Nd * 100
    pd_ = props(tab_ktd)
    ps_ = props(tab_kts)
    r["Dorig"] = did.values.sum() / Nd * 100
    r["Dsyn"] = dis.values.sum() / Ns * 100
    r["iS"] = tab_iS.values.sum() / Nd * 100
    r["DiS"] = tab_DiS.values.sum() / Nd * 100
    r["DiSCO"] = tab_DiSCO.values.sum() / Nd * 100
    r["DiSDiO"] = tab_DiSDiO.values.sum() / Nd * 100
    r["max_denom"] = tab_DiSCO.values.max()
    pos = tab_DiSCO.values[tab_DiSCO.values > 0]
    r["mean_denom"] = pos.mean() if len(pos) else None
    r["baseCAPd"] = ((tab_td / Nd) ** 2).sum() * 100
    r["CAPd"] = ((pd_ ** 2).sum(axis=0) * tab_kd).sum() / Nd * 100
    r["CAPs"] = ((ps_ ** 2).sum(axis=0) * tab_ks).sum() / Ns * 100
    r["DCAP"] = (ps_ * tab_ktd).values.sum() / Nd * 100
    tden = tab_kd[tab_ks > 0].sum()
    r["TCAP"] = tab_DiSCO.values.sum() / tden * 100 if tden > 0 else None
    r["excluded_original"] = excl_d
    r["excluded_synthetic"] = excl_s
    return {k: (None if v is None else float(v)) for k, v in r.items()}


# ---------------------------------------------------------------- seed 002 CAP, record by record
def individual_cap(conf_row, syn, keys, target):
    """Seed 002's CalculateIndividualCAP, literally (missing values already a level)."""
    match_key = np.ones(len(syn), dtype=bool)
    for k in keys:
        match_key &= syn[k].values == conf_row[k]
    match_key_target = match_key & (syn[target].values == conf_row[target])
    if match_key.sum() > 0:
        return match_key_target.sum() / match_key.sum(), True
    return 0.0, False


def cap_measures(orig, syn, keys, target):
    dd = as_levels(orig, keys + [target])
    ss = as_levels(syn, keys + [target])
    caps_syn, found, caps_conf = [], [], []
    for i in range(len(dd)):
        row = dd.iloc[i]
        c, f = individual_cap(row, ss, keys, target)
        caps_syn.append(c)
        found.append(f)
        caps_conf.append(individual_cap(row, dd, keys, target)[0])
    caps_syn, found, caps_conf = np.array(caps_syn), np.array(found), np.array(caps_conf)
    v1 = caps_syn.mean()
    v2 = caps_syn[found].mean() if found.any() else None
    base = caps_conf.mean()
    return {
        "cap_v1": float(v1),
        "cap_v2": None if v2 is None else float(v2),
        "cap_confidential": float(base),
        "dcap_ratio_v1": float(v1 / base),
        "dcap_ratio_v2": None if v2 is None else float(v2 / base),
        "absent_key_share": float(1 - found.mean()),
        "risk_rose_share": float((caps_syn > caps_conf).mean()),
        "record_cap_synthetic": caps_syn.tolist(),
        "record_cap_confidential": caps_conf.tolist(),
    }


# ---------------------------------------------------------------- SDMetrics CategoricalCAP
def sdmetrics_categorical_cap(real, synthetic, key_fields, sensitive_fields):
    """SDMetrics CAPAttacker + CategoricalPrivacyMetric.compute (ACCURACY_BASE = False), with
    DisclosureProtection's null handling (NA becomes a category of its own)."""
    real = as_levels(real, key_fields + sensitive_fields)
    synthetic = as_levels(synthetic, key_fields + sensitive_fields)
    synthetic_dict = {}
    for idx in range(len(synthetic)):
        key_value = tuple(synthetic[key_fields].iloc[idx])
        sensitive_value = tuple(synthetic[sensitive_fields].iloc[idx])
        synthetic_dict.setdefault(key_value, []).append(sensitive_value)
    count, score = 0, 0.0
    for idx in range(len(real)):
        key_data = tuple(real[key_fields].iloc[idx])
        sensitive_data = tuple(real[sensitive_fields].iloc[idx])
        if key_data in synthetic_dict:
            samples = synthetic_dict[key_data]
            count += 1
            score += sum(1 for s in samples if s == sensitive_data) / len(samples)
    cap_protection = 0.0 if count == 0 else 1.0 - score / count
    prod = np.prod([real[c].nunique(dropna=False) for c in sensitive_fields])
    baseline = 1 - float(1 / prod)
    if baseline == 0:
        score_ = 0 if cap_protection == 0 else 1
    else:
        score_ = min(cap_protection / baseline, 1)
    return {"categorical_cap": cap_protection, "baseline_protection": baseline,
            "disclosure_protection": float(score_)}


# ---------------------------------------------------------------- identity matching, brute force
def identity_matching(orig, syn, keys, radius):
    """Seed 001: for each confidential record i the synthetic records whose keys match (exact on
    categoricals, |x_s - x_o| <= radius on numerics); T_i = 1 when record i itself is among them."""
    n = len(orig)
    expected, true_unique, unique = 0.0, 0, 0
    for i in range(n):
        match = np.ones(len(syn), dtype=bool)
        for k in keys:
            o = orig[k].iloc[i]
            s = syn[k].values
            if k in radius:
                if pd.isna(o):
                    match &= pd.isna(s)
                else:
                    with np.errstate(invalid="ignore"):
                        match &= np.abs(s.astype(float) - float(o)) <= radius[k]
            else:
                so = pd.Series(s)
                match &= (so.isna().values & pd.isna(o)) | (so.values == o)
        c = match.sum()
        t = bool(match[i])
        if c > 0 and t:
            expected += 1.0 / c
        if c == 1:
            unique += 1
            if t:
                true_unique += 1
    return {"expected_match_risk": expected, "true_match_rate": true_unique / n,
            "false_match_rate": (unique - true_unique) / unique if unique else None,
            "unique_matches": unique}


# ---------------------------------------------------------------- the family's matching rule
# disclosure_matching (docs/metrics.md): numeric s matches confidential c when
# |s - c| <= max(numeric_tolerance, relative_tolerance * |c|) (exact equality when both are 0);
# a missing value matches a missing value only when missing_matches, and never a value.
def rule_matches(c, s, rule, numeric):
    c_missing, s_missing = pd.isna(c), pd.isna(s)
    if c_missing or s_missing:
        return bool(rule["missing_matches"] and c_missing and s_missing)
    if not numeric:
        return c == s
    radius = max(rule["numeric_tolerance"], rule["relative_tolerance"] * abs(float(c)))
    return abs(float(s) - float(c)) <= radius


def cap_with_rule(orig, syn, keys, target, rule):
    """CAP record by record: keys equal under the missing rule (categorical and numeric keys are
    compared as values), the numeric target under the whole rule."""
    numeric = {k: pd.api.types.is_numeric_dtype(orig[k]) for k in keys + [target]}

    def one(row, z):
        key_match = [all(rule_matches(row[k], zr[k], {**rule, "numeric_tolerance": 0.0,
                                                          "relative_tolerance": 0.0}, numeric[k])
                         for k in keys) for _, zr in z.iterrows()]
        n_key = sum(key_match)
        if n_key == 0:
            return 0.0, False
        hits = sum(1 for m, (_, zr) in zip(key_match, z.iterrows())
                   if m and rule_matches(row[target], zr[target], rule, numeric[target]))
        return hits / n_key, True

    caps_syn, found, caps_conf = [], [], []
    for _, row in orig.iterrows():
        c, f = one(row, syn)
        caps_syn.append(c)
        found.append(f)
        caps_conf.append(one(row, orig)[0])
    caps_syn, found, caps_conf = np.array(caps_syn), np.array(found), np.array(caps_conf)
    v1, base = caps_syn.mean(), caps_conf.mean()
    v2 = caps_syn[found].mean() if found.any() else None
    return {"cap_v1": float(v1), "cap_v2": None if v2 is None else float(v2),
            "cap_confidential": float(base), "absent_key_share": float(1 - found.mean()),
            "risk_rose_share": float((caps_syn > caps_conf).mean())}


def identity_with_rule(orig, syn, keys, rule):
    """Seed 001's matcher with the family's rule on every key (numeric keys within the
    tolerance, categorical keys equal, missing values by missing_matches)."""
    n = len(orig)
    numeric = {k: pd.api.types.is_numeric_dtype(orig[k]) for k in keys}
    expected, true_unique, unique = 0.0, 0, 0
    for i in range(n):
        match = np.array([all(rule_matches(orig[k].iloc[i], syn[k].iloc[j], rule, numeric[k])
                              for k in keys) for j in range(len(syn))])
        c = match.sum()
        t = bool(match[i])
        if c > 0 and t:
            expected += 1.0 / c
        if c == 1:
            unique += 1
            true_unique += t
    return {"expected_match_risk": expected, "true_match_rate": true_unique / n,
            "false_match_rate": (unique - true_unique) / unique if unique else None,
            "unique_matches": unique}


MATCHING_RULES = {
    "absolute_1_missing_matches": {"numeric_tolerance": 1.0, "relative_tolerance": 0.0,
                                   "missing_matches": True},
    "relative_0.25": {"numeric_tolerance": 0.0, "relative_tolerance": 0.25,
                      "missing_matches": False},
    "exact_missing_matches_nothing": {"numeric_tolerance": 0.0, "relative_tolerance": 0.0,
                                      "missing_matches": False},
    "absolute_0.5_relative_0.3": {"numeric_tolerance": 0.5, "relative_tolerance": 0.3,
                                  "missing_matches": False},
}


def synthpop_with_rule(orig, syn, keys, target, rule):
    """synthpop's disclosure measures counted record by record under the family's matching rule
    (the definition docs/metrics.md gives for rules other than synthpop's): keys match when every
    key value matches under the missing rule alone, the target under the whole rule with the
    record's own value as the confidential one. With rule 0/0/True it reproduces
    synthpop_disclosure() above (checked in main())."""
    numeric = {c: pd.api.types.is_numeric_dtype(orig[c]) for c in keys + [target]}
    exact = {**rule, "numeric_tolerance": 0.0, "relative_tolerance": 0.0}

    def key_match(a, b):
        return all(rule_matches(a[k], b[k], exact, numeric[k]) for k in keys)

    def target_match(c, s):
        return rule_matches(c, s, rule, numeric[target])

    O = [row for _, row in orig.iterrows()]
    S = [row for _, row in syn.iterrows()]
    Nd, Ns = len(O), len(S)

    def counts(row, rows):
        same_key = [z for z in rows if key_match(row, z)]
        return len(same_key), sum(1 for z in same_key if target_match(row[target], z[target])), \
            same_key

    syn_stats = []  # (s(z), s(z,t)) within the synthetic data
    for z in S:
        sk, skt, _ = counts(z, S)
        syn_stats.append((sk, skt))
    r = dict.fromkeys(["UiO", "UiOiS", "repU", "Dorig", "iS", "DiS", "DiSCO", "DiSDiO",
                       "CAPd", "DCAP"], 0.0)
    found = 0
    disco_by_key = {}
    for row in O:
        dk, dkt, _ = counts(row, O)
        if dk == 0:
            continue
        sk, skt, same = counts(row, S)
        r["UiO"] += dk == 1
        r["UiOiS"] += dk == 1 and sk > 0
        r["repU"] += dk == 1 and sk == 1
        r["Dorig"] += dkt == dk
        r["CAPd"] += dkt / dk
        if sk == 0:
            continue
        found += 1
        r["iS"] += 1
        # some synthetic record of the key agrees with all of them
        r["DiS"] += any(key_match(z, row) and syn_stats[j][1] == syn_stats[j][0]
                        for j, z in enumerate(S))
        correct = skt == sk
        r["DiSCO"] += correct
        r["DiSDiO"] += correct and dkt == dk
        r["DCAP"] += skt / sk
        if correct:
            kt = tuple("NA" if pd.isna(row[k]) else str(row[k]) for k in keys)
            disco_by_key[kt] = disco_by_key.get(kt, 0) + 1
    out = {k: v / Nd * 100 for k, v in r.items()}
    out["UiS"] = sum(1 for sk, _ in syn_stats if sk == 1) / Ns * 100
    out["Dsyn"] = sum(1 for sk, skt in syn_stats if sk > 0 and skt == sk) / Ns * 100
    out["CAPs"] = sum(skt / sk for sk, skt in syn_stats if sk > 0) / Ns * 100
    out["TCAP"] = r["DiSCO"] / found * 100 if found else None
    out["baseCAPd"] = sum(sum(1 for b in O if target_match(a[target], b[target])) for a in O) \
        / (Nd * Nd) * 100
    pos = [c for c in disco_by_key.values() if c > 0]
    out["max_denom"] = float(max(pos)) if pos else 0.0
    out["mean_denom"] = float(np.mean(pos)) if pos else None
    out["excluded_original"] = 0.0
    out["excluded_synthetic"] = 0.0
    return {k: (None if v is None else float(v)) for k, v in out.items()}


def sdmetrics_with_rule(orig, syn, keys, targets, rule):
    """CategoricalCAP record by record under the family's matching rule: a synthetic record of the
    record's key (keys under the missing rule alone) counts when every target matches under the
    whole rule. With rule 0/0/True it reproduces sdmetrics_categorical_cap() (checked)."""
    numeric = {c: pd.api.types.is_numeric_dtype(orig[c]) for c in keys + targets}
    exact = {**rule, "numeric_tolerance": 0.0, "relative_tolerance": 0.0}
    S = [row for _, row in syn.iterrows()]
    count, score = 0, 0.0
    for _, row in orig.iterrows():
        same = [z for z in S if all(rule_matches(row[k], z[k], exact, numeric[k]) for k in keys)]
        if not same:
            continue
        count += 1
        score += sum(1 for z in same
                     if all(rule_matches(row[t], z[t], rule, numeric[t]) for t in targets)) \
            / len(same)
    cap_protection = 0.0 if count == 0 else 1.0 - score / count
    return {"categorical_cap": cap_protection}


def make_random(seed, n, ns, shift):
    rng = np.random.default_rng(seed)

    def draw(m, p_shift):
        a = rng.choice(["x", "y", "z"], size=m, p=[0.5, 0.3, 0.2])
        b = rng.choice(["b1", "b2", "b3", "b4", None], size=m, p=[0.3, 0.3, 0.2, 0.15, 0.05])
        c = rng.integers(0, 6, size=m).astype(float)
        c[rng.random(m) < 0.03] = np.nan
        p_yes = 0.2 + 0.5 * (a == "x") + p_shift
        t = np.where(rng.random(m) < np.clip(p_yes, 0, 1), "yes", "no").astype(object)
        t[rng.random(m) < 0.05] = None
        u = rng.choice(["u1", "u2", "u3"], size=m)
        return pd.DataFrame({"a": a, "b": b, "c": c, "t": t, "u": u})

    return draw(n, 0.0), draw(ns, shift)


def main():
    golden = {}
    # 1. random tables (missing values in keys and targets, keys absent from the synthetic data)
    conf, syn = make_random(11, 300, 260, 0.1)
    conf.to_csv(os.path.join(HERE, "conf_random.csv"), index=False, na_rep="NA")
    syn.to_csv(os.path.join(HERE, "syn_random.csv"), index=False, na_rep="NA")
    g = {}
    for keys, target in [(["a", "b"], "t"), (["a", "b", "c"], "t"), (["a", "c"], "u")]:
        scope = "keys=" + ",".join(keys) + ";target=" + target
        g[scope] = {
            "synthpop": synthpop_disclosure(conf, syn, keys, target),
            "synthpop_denom_lim": synthpop_disclosure(conf, syn, keys, target, denom_lim=3,
                                                      exclude_ov_denom_lim=True),
            "synthpop_no_missing": synthpop_disclosure(conf, syn, keys, target,
                                                       usetargetNA=False, usekeysNA=False),
            "synthpop_not_target": synthpop_disclosure(conf, syn, keys, target,
                                                       not_targetlev=["no"],
                                                       exclude_keys=["a"], exclude_keylevs=["x"],
                                                       exclude_targetlevs=["yes"]),
            "cap": cap_measures(conf, syn, keys, target),
            "sdmetrics": sdmetrics_categorical_cap(conf, syn, keys, [target]),
        }
    g["keys=a,b;targets=t,u"] = {"sdmetrics": sdmetrics_categorical_cap(conf, syn, ["a", "b"], ["t", "u"])}
    golden["random"] = g

    # 2. partial synthesis with row correspondence: keys a (categorical) and c (numeric, radius 1)
    rng = np.random.default_rng(5)
    part = conf.copy()
    flip = rng.random(len(part)) < 0.3
    part.loc[flip, "c"] = part.loc[flip, "c"] + rng.integers(-2, 3, size=flip.sum())
    part.to_csv(os.path.join(HERE, "partial_random.csv"), index=False, na_rep="NA")
    golden["identity"] = {
        "keys=a,b,c;radius=0": identity_matching(conf, part, ["a", "b", "c"], {"c": 0.0}),
        "keys=a,b,c;radius=1": identity_matching(conf, part, ["a", "b", "c"], {"c": 1.0}),
    }

    # 2b. the family's matching rule: CAP of the numeric c (and of the categorical t) and
    # identity matching on a, b, c under each rule of MATCHING_RULES
    golden["matching"] = {
        "rules": MATCHING_RULES,
        "cap": {name: {"keys=a,b;target=c": cap_with_rule(conf, syn, ["a", "b"], "c", rule),
                       "keys=a,c;target=t": cap_with_rule(conf, syn, ["a", "c"], "t", rule)}
                for name, rule in MATCHING_RULES.items()},
        "identity": {name: identity_with_rule(conf, part, ["a", "b", "c"], rule)
                     for name, rule in MATCHING_RULES.items()},
    }

    # 2c. synthpop disclosure and SDMetrics' CAP under the family's rule (the rule-0/0/True
    # transcription first checked against the synthpop and SDMetrics transcriptions above)
    synthpop_rule = {"numeric_tolerance": 0.0, "relative_tolerance": 0.0, "missing_matches": True}
    for keys, target in [(["a", "b"], "t"), (["a", "b", "c"], "t")]:
        want = synthpop_disclosure(conf, syn, keys, target)
        got = synthpop_with_rule(conf, syn, keys, target, synthpop_rule)
        for k, v in want.items():
            assert (v is None and got[k] is None) or abs(v - got[k]) < 1e-9, (keys, k, v, got[k])
        want = sdmetrics_categorical_cap(conf, syn, keys, [target])["categorical_cap"]
        got = sdmetrics_with_rule(conf, syn, keys, [target], synthpop_rule)["categorical_cap"]
        assert abs(want - got) < 1e-12, (keys, want, got)
    golden["matching"]["synthpop"] = {
        name: {"keys=a,b;target=c": synthpop_with_rule(conf, syn, ["a", "b"], "c", rule),
               "keys=a,c;target=t": synthpop_with_rule(conf, syn, ["a", "c"], "t", rule)}
        for name, rule in MATCHING_RULES.items()}
    golden["matching"]["sdmetrics"] = {
        name: {"keys=a,b;targets=c": sdmetrics_with_rule(conf, syn, ["a", "b"], ["c"], rule),
               "keys=a;targets=c,t": sdmetrics_with_rule(conf, syn, ["a"], ["c", "t"], rule),
               "keys=a;targets=t,u": sdmetrics_with_rule(conf, syn, ["a"], ["t", "u"], rule)}
        for name, rule in MATCHING_RULES.items()}

    # 3. SD2011: the peer's numbers (synthpop disclosure and SDMetrics CategoricalCAP)
    sd = os.path.join(HERE, "..", "..", "data", "sd2011")
    if os.path.isdir(sd):
        o = pd.read_csv(os.path.join(sd, "orig.csv"))
        s = pd.read_csv(os.path.join(sd, "syn.csv"))
        golden["sd2011"] = {
            "synthpop": synthpop_disclosure(o, s, ["sex", "age", "edu", "marital"], "smoke"),
            "sdmetrics": sdmetrics_categorical_cap(o, s, ["sex", "edu", "marital"], ["smoke"]),
            "cap": {k: v for k, v in cap_measures(o, s, ["sex", "age", "edu", "marital"], "smoke").items()
                    if not k.startswith("record_")},
        }
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
