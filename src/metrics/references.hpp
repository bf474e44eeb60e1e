#pragma once
// The published works and software releases the metrics follow, each written once. A metric's
// factory lists the ones it uses in MetricSpec::references; `used_for` says what it takes.
#include <string>

#include "metrics/metric.hpp"

namespace synthaudit::references {

// `reference` with used_for set: what the citing metric takes from the work.
Reference cite(Reference reference, std::string used_for);

// Synthetic data: inference and utility.
Reference reiter_2002();
Reference raghunathan_reiter_rubin_2003();
Reference reiter_2003();
Reference karr_2006();
Reference drechsler_reiter_2009();
Reference woo_2009();
Reference snoke_2018();
Reference barrientos_2024();
Reference nowok_raab_dibben_2016();
Reference raab_nowok_dibben_2016();
Reference raab_nowok_dibben_2021();
Reference synthpop_software();
Reference taub_elliot_sakshaug_2020();
Reference cmf_software();
Reference hundepool_2012();
// Special uniques (SUDA).
Reference elliot_manning_ford_2002();
Reference manning_haglin_keane_2008();
Reference elliot_suda_2005();
Reference skinner_elliot_2002();
Reference sdcmicro_suda2_software();  // sdcMicro's JSS paper, at the version suda2 compares with
Reference voas_williamson_2001();
Reference austin_2009();
Reference hyndman_fan_1996();
Reference sdmetrics_software();
Reference sdnist_software();
Reference scipy_2020();
Reference venables_ripley_2002();
Reference cramer_1946();
Reference breiman_1984();
Reference rpart_software();
Reference chen_guestrin_2016();
Reference statsmodels_software();
Reference scikit_learn_2011();
Reference urban_institute_2023();
Reference kulik_lecture_notes();
Reference vallender_1974();

// Disclosure risk.
Reference elliot_2014();
Reference taub_2018();
Reference baillargeon_charest_2020();
Reference raab_nowok_dibben_2024();
Reference reiter_mitra_2009();
Reference hornby_hu_2021();
Reference hittmeir_2020();
Reference choi_2017();
Reference gower_1971();
Reference mendelevitch_lesh_2021();
Reference syntheval_software();
// Survey weights: R's survey package, the quantile interval it uses, linearised regression SEs.
Reference lumley_2004();
Reference woodruff_1952();
Reference kish_1965();
Reference judkins_1990();
Reference binder_1983();

// Attacks against a control set.
Reference giomi_2023();
Reference anonymeter_software();
Reference article29_2014();
Reference wilson_1927();
// Membership inference and auditing of differential privacy.
Reference carlini_2022();
Reference jagielski_ullman_oprea_2020();
Reference nasr_2021();
Reference kairouz_oh_viswanath_2015();
Reference yeom_2018();
Reference clopper_pearson_1934();
// Attacks that calibrate against reference data and aim at vulnerable records.
Reference chen_2020_gan_leaks();
Reference stadler_oprisanu_troncoso_2022();
Reference van_breugel_2023();
Reference meeus_2023();
Reference loftsgaarden_quesenberry_1965();
// Identifiability of records in synthetic data.
Reference yoon_drumright_van_der_schaar_2020();
Reference synthcity_software();

// Statistical disclosure control measures (the sdc-risk family).
Reference samarati_sweeney_1998();
Reference sweeney_2002();
Reference machanavajjhala_2007();
Reference li_li_venkatasubramanian_2007();
Reference benedetti_franconi_1998();
Reference franconi_polettini_2004();
Reference templ_kowarik_meindl_2015();
Reference sdcmicro_software();
Reference cohen_nissim_2020();

// Model analyses (generalised linear, multinomial and ordinal models).
Reference nelder_wedderburn_1972();
Reference mccullagh_1980();
Reference r_software();
// Machine-learning efficacy (train on synthetic, test on real).
Reference esteban_hyland_raetsch_2017();
// Weighted rank correlation.
Reference bailey_emad_wcorr();
// Distribution-free confidence intervals for a quantile from order statistics.
Reference conover_1999();
// Edit rules: data editing, and the exact test of two rates.
Reference fellegi_holt_1976();
Reference de_waal_pannekoek_scholtus_2011();
Reference fisher_1935();
// Exact (order-independent) summation of floating-point numbers.
Reference kulisch_2013();
Reference neal_2015();
// Households and related tables: multi-table synthetic data and its evaluation.
Reference patki_2016();
Reference hudovernik_2024();
Reference alfons_templ_2013();

}  // namespace synthaudit::references
