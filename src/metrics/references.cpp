#include "metrics/references.hpp"

#include <utility>

namespace synthaudit::references {

Reference cite(Reference reference, std::string used_for) {
  reference.used_for = std::move(used_for);
  return reference;
}

Reference reiter_2002() {
  return {.authors = "Reiter, J. P.",
          .year = 2002,
          .title = "Satisfying disclosure restrictions with synthetic data sets",
          .venue = "Journal of Official Statistics 18(4), 531–543"};
}

Reference raghunathan_reiter_rubin_2003() {
  return {.authors = "Raghunathan, T. E., Reiter, J. P. and Rubin, D. B.",
          .year = 2003,
          .title = "Multiple imputation for statistical disclosure limitation",
          .venue = "Journal of Official Statistics 19(1), 1–16"};
}

Reference reiter_2003() {
  return {.authors = "Reiter, J. P.",
          .year = 2003,
          .title = "Inference for partially synthetic, public use microdata sets",
          .venue = "Survey Methodology 29(2), 181–188"};
}

Reference karr_2006() {
  return {.authors = "Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. and Sanil, A. P.",
          .year = 2006,
          .title =
              "A framework for evaluating the utility of data altered to protect "
              "confidentiality",
          .venue = "The American Statistician 60(3), 224–232",
          .doi = "10.1198/000313006X124640"};
}

Reference drechsler_reiter_2009() {
  return {.authors = "Drechsler, J. and Reiter, J. P.",
          .year = 2009,
          .title =
              "Disclosure risk and data utility for partially synthetic data: an empirical "
              "study using the German IAB Establishment Survey",
          .venue = "Journal of Official Statistics 25(4), 589–603"};
}

Reference woo_2009() {
  return {.authors = "Woo, M.-J., Reiter, J. P., Oganian, A. and Karr, A. F.",
          .year = 2009,
          .title =
              "Global measures of data utility for microdata masked for disclosure "
              "limitation",
          .venue = "Journal of Privacy and Confidentiality 1(1), 111–124",
          .doi = "10.29012/jpc.v1i1.568"};
}

Reference snoke_2018() {
  return {.authors = "Snoke, J., Raab, G. M., Nowok, B., Dibben, C. and Slavković, A.",
          .year = 2018,
          .title = "General and specific utility measures for synthetic data",
          .venue = "Journal of the Royal Statistical Society Series A 181(3), 663–688",
          .doi = "10.1111/rssa.12358"};
}

Reference barrientos_2024() {
  return {.authors = "Barrientos, A. F., Williams, A. R., Snoke, J. and Bowen, C. M.",
          .year = 2024,
          .title =
              "A feasibility study of differentially private summary statistics and "
              "regression analyses with evaluations on administrative and survey data",
          .venue = "Journal of the American Statistical Association 119(545), 52–65",
          .doi = "10.1080/01621459.2023.2270795"};
}

Reference nowok_raab_dibben_2016() {
  return {.authors = "Nowok, B., Raab, G. M. and Dibben, C.",
          .year = 2016,
          .title = "synthpop: Bespoke creation of synthetic data in R",
          .venue = "Journal of Statistical Software 74(11), 1–26",
          .doi = "10.18637/jss.v074.i11"};
}

Reference raab_nowok_dibben_2016() {
  return {.authors = "Raab, G. M., Nowok, B. and Dibben, C.",
          .year = 2016,
          .title = "Practical data synthesis for large samples",
          .venue = "Journal of Privacy and Confidentiality 7(3), 67–97",
          .doi = "10.29012/jpc.v7i3.407"};
}

Reference raab_nowok_dibben_2021() {
  return {.authors = "Raab, G. M., Nowok, B. and Dibben, C.",
          .year = 2021,
          .title = "Assessing, visualizing and improving the utility of synthetic data",
          .venue = "arXiv:2109.12717",
          .url = "https://arxiv.org/abs/2109.12717"};
}

Reference synthpop_software() {
  return {.authors = "Nowok, B., Raab, G. M. and Dibben, C.",
          .year = 2024,
          .title =
              "synthpop: Generating synthetic versions of sensitive microdata for "
              "statistical disclosure control",
          .venue = "R package",
          .url = "https://CRAN.R-project.org/package=synthpop",
          .software = "synthpop",
          .version = "1.9-3"};
}

Reference taub_elliot_sakshaug_2020() {
  return {.authors = "Taub, J., Elliot, M. and Sakshaug, J. W.",
          .year = 2020,
          .title =
              "The impact of synthetic data generation on data utility with application to "
              "the 1991 UK samples of anonymised records",
          .venue = "Transactions on Data Privacy 13(1), 1–23"};
}

Reference cmf_software() {
  return {.authors = "MUNFAI15 (GitHub)",
          .title = "cmf: a comparative metrics framework for synthetic data",
          .venue = "R package",
          .url = "https://github.com/MUNFAI15/cmf",
          .software = "cmf"};
}

Reference hundepool_2012() {
  return {.authors =
              "Hundepool, A., Domingo-Ferrer, J., Franconi, L., Giessing, S., Schulte "
              "Nordholt, E., Spicer, K. and de Wolf, P.-P.",
          .year = 2012,
          .title = "Statistical Disclosure Control",
          .venue = "Wiley, Chichester",
          .doi = "10.1002/9781118348239"};
}

// Special uniques (SUDA).
Reference elliot_manning_ford_2002() {
  return {.authors = "Elliot, M. J., Manning, A. M. and Ford, R. W.",
          .year = 2002,
          .title = "A computational algorithm for handling the special uniques problem",
          .venue =
              "International Journal of Uncertainty, Fuzziness and Knowledge-Based Systems "
              "10(5), 493–509",
          .doi = "10.1142/S0218488502001600"};
}

Reference manning_haglin_keane_2008() {
  return {.authors = "Manning, A. M., Haglin, D. J. and Keane, J. A.",
          .year = 2008,
          .title = "A recursive search algorithm for statistical disclosure assessment",
          .venue = "Data Mining and Knowledge Discovery 16(2), 165–196",
          .doi = "10.1007/s10618-007-0078-6"};
}

Reference elliot_suda_2005() {
  return {.authors = "Elliot, M. J., Manning, A. M., Mayes, K., Gurd, J. and Bane, M.",
          .year = 2005,
          .title = "SUDA: A program for detecting special uniques",
          .venue =
              "Joint UNECE/Eurostat Work Session on Statistical Data Confidentiality, "
              "Geneva"};
}

Reference skinner_elliot_2002() {
  return {.authors = "Skinner, C. J. and Elliot, M. J.",
          .year = 2002,
          .title = "A measure of disclosure risk for microdata",
          .venue = "Journal of the Royal Statistical Society: Series B 64(4), 855–867",
          .doi = "10.1111/1467-9868.00365"};
}

Reference sdcmicro_suda2_software() {
  return {.authors = "Templ, M., Kowarik, A. and Meindl, B.",
          .year = 2015,
          .title = "Statistical Disclosure Control for Micro-Data Using the R Package sdcMicro",
          .venue = "Journal of Statistical Software 67(4), 1–36",
          .doi = "10.18637/jss.v067.i04",
          .software = "sdcMicro",
          .version = "5.8.1"};
}

Reference voas_williamson_2001() {
  return {.authors = "Voas, D. and Williamson, P.",
          .year = 2001,
          .title = "Evaluating goodness-of-fit measures for synthetic microdata",
          .venue = "Geographical and Environmental Modelling 5(2), 177–200",
          .doi = "10.1080/13615930120086078"};
}

Reference austin_2009() {
  return {.authors = "Austin, P. C.",
          .year = 2009,
          .title =
              "Balance diagnostics for comparing the distribution of baseline covariates "
              "between treatment groups in propensity-score matched samples",
          .venue = "Statistics in Medicine 28(25), 3083–3107",
          .doi = "10.1002/sim.3697"};
}

Reference hyndman_fan_1996() {
  return {.authors = "Hyndman, R. J. and Fan, Y.",
          .year = 1996,
          .title = "Sample quantiles in statistical packages",
          .venue = "The American Statistician 50(4), 361–365",
          .doi = "10.1080/00031305.1996.10473566"};
}

Reference sdnist_software() {
  return {.authors = "Task, C., Bhagat, K. & Howarth, G. S.",
          .year = 2023,
          .title = "SDNist v2: Deidentified Data Report Tool",
          .venue = "National Institute of Standards and Technology, doi:10.18434/mds2-2943",
          .url = "https://github.com/usnistgov/SDNist",
          .software = "SDNist",
          .version = "2.5 (commit f048b1c, 2025-07-14; k-marginal in sdnist/metrics/kmarginal.py)"};
}

Reference sdmetrics_software() {
  return {.authors = "DataCebo",
          .year = 2024,
          .title = "SDMetrics: metrics for synthetic data generation projects",
          .venue = "Python package",
          .url = "https://docs.sdv.dev/sdmetrics",
          .software = "SDMetrics",
          .version = "0.29.1"};
}

Reference scipy_2020() {
  return {.authors = "Virtanen, P., Gommers, R., Oliphant, T. E. et al.",
          .year = 2020,
          .title = "SciPy 1.0: fundamental algorithms for scientific computing in Python",
          .venue = "Nature Methods 17, 261–272",
          .doi = "10.1038/s41592-019-0686-2",
          .software = "SciPy",
          .version = "1.10"};
}

Reference venables_ripley_2002() {
  return {.authors = "Venables, W. N. and Ripley, B. D.",
          .year = 2002,
          .title = "Modern Applied Statistics with S (4th edition)",
          .venue = "Springer, New York",
          .doi = "10.1007/978-0-387-21706-2"};
}

Reference cramer_1946() {
  return {.authors = "Cramér, H.",
          .year = 1946,
          .title = "Mathematical Methods of Statistics",
          .venue = "Princeton University Press"};
}

Reference breiman_1984() {
  return {.authors = "Breiman, L., Friedman, J. H., Olshen, R. A. and Stone, C. J.",
          .year = 1984,
          .title = "Classification and Regression Trees",
          .venue = "Wadsworth, Belmont"};
}

Reference rpart_software() {
  return {.authors = "Therneau, T. and Atkinson, B.",
          .year = 2022,
          .title = "rpart: Recursive partitioning and regression trees",
          .venue = "R package",
          .url = "https://CRAN.R-project.org/package=rpart",
          .software = "rpart",
          .version = "4.1.19"};
}

Reference chen_guestrin_2016() {
  return {.authors = "Chen, T. and Guestrin, C.",
          .year = 2016,
          .title = "XGBoost: a scalable tree boosting system",
          .venue =
              "Proceedings of the 22nd ACM SIGKDD International Conference on Knowledge "
              "Discovery and Data Mining, 785–794",
          .doi = "10.1145/2939672.2939785",
          .software = "libxgboost",
          .version = "1.7.4"};
}

Reference statsmodels_software() {
  return {.authors = "Seabold, S. and Perktold, J.",
          .year = 2010,
          .title = "statsmodels: econometric and statistical modeling with Python",
          .venue = "Proceedings of the 9th Python in Science Conference, 92–96",
          .doi = "10.25080/Majora-92bf1922-011",
          .software = "statsmodels",
          .version = "0.13.5"};
}

Reference scikit_learn_2011() {
  return {.authors = "Pedregosa, F., Varoquaux, G., Gramfort, A. et al.",
          .year = 2011,
          .title = "Scikit-learn: machine learning in Python",
          .venue = "Journal of Machine Learning Research 12, 2825–2830",
          .url = "https://jmlr.org/papers/v12/pedregosa11a.html",
          .software = "scikit-learn",
          .version = "1.2.1"};
}

Reference urban_institute_2023() {
  return {.authors = "Urban Institute",
          .year = 2023,
          .title = "Utility and disclosure risk metrics and synthetic data case studies",
          .venue = "Data privacy training for the IRS, lesson 2",
          .url =
              "https://ui-research.github.io/irs-data-privacy-trainings-2023/lessons/"
              "02_disclosure_utility_metrics_case_studies"};
}

Reference kulik_lecture_notes() {
  return {.authors = "Kulik, R.",
          .year = 2025,
          .title =
              "Measuring data utility and information loss (MAT 4376 Foundations of Data "
              "Privacy, lectures 7–9)",
          .venue =
              "Lecture notes, Department of Mathematics and Statistics, University of "
              "Ottawa"};
}

Reference vallender_1974() {
  return {.authors = "Vallender, S. S.",
          .year = 1974,
          .title =
              "Calculation of the Wasserstein distance between probability distributions "
              "on the line",
          .venue = "Theory of Probability and Its Applications 18(4), 784–786",
          .doi = "10.1137/1118101"};
}

Reference elliot_2014() {
  return {.authors = "Elliot, M.",
          .year = 2014,
          .title =
              "Final report on the disclosure risk associated with the synthetic data "
              "produced by the SYLLS team",
          .venue =
              "Report, Cathie Marsh Institute for Social Research, University of "
              "Manchester"};
}

Reference taub_2018() {
  return {.authors = "Taub, J., Elliot, M., Pampaka, M. and Smith, D.",
          .year = 2018,
          .title =
              "Differential correct attribution probability for synthetic data: an "
              "exploration",
          .venue =
              "Privacy in Statistical Databases (PSD 2018), Lecture Notes in Computer "
              "Science 11126, 122–137, Springer",
          .doi = "10.1007/978-3-319-99771-1_9"};
}

Reference baillargeon_charest_2020() {
  return {.authors = "Baillargeon, M. and Charest, A.-S.",
          .year = 2020,
          .title = "A closer look at the CAP risk measure for synthetic datasets",
          .venue = "Privacy in Statistical Databases (PSD 2020), e-proceedings"};
}

Reference raab_nowok_dibben_2024() {
  return {.authors = "Raab, G. M., Nowok, B. and Dibben, C.",
          .year = 2024,
          .title = "Practical privacy metrics for synthetic data",
          .venue = "arXiv:2406.16826 (the synthpop disclosure vignette)",
          .url = "https://arxiv.org/abs/2406.16826"};
}

Reference reiter_mitra_2009() {
  return {.authors = "Reiter, J. P. and Mitra, R.",
          .year = 2009,
          .title = "Estimating risks of identification disclosure in partially synthetic data",
          .venue = "Journal of Privacy and Confidentiality 1(1), 99–110",
          .doi = "10.29012/jpc.v1i1.567"};
}

Reference hornby_hu_2021() {
  return {.authors = "Hornby, R. and Hu, J.",
          .year = 2021,
          .title = "Identification risk evaluation of continuous synthesized variables",
          .venue = "Transactions on Data Privacy 14(1)"};
}

Reference hittmeir_2020() {
  return {.authors = "Hittmeir, M., Mayer, R. and Ekelhart, A.",
          .year = 2020,
          .title = "A baseline for attribute disclosure risk in synthetic data",
          .venue =
              "Proceedings of the 10th ACM Conference on Data and Application Security and "
              "Privacy (CODASPY 2020), 133–143",
          .doi = "10.1145/3374664.3375722"};
}

Reference choi_2017() {
  return {.authors = "Choi, E., Biswal, S., Malin, B., Duke, J., Stewart, W. F. and Sun, J.",
          .year = 2017,
          .title =
              "Generating multi-label discrete patient records using generative "
              "adversarial networks",
          .venue =
              "Proceedings of the 2nd Machine Learning for Healthcare Conference, PMLR 68, "
              "286–305"};
}

Reference gower_1971() {
  return {.authors = "Gower, J. C.",
          .year = 1971,
          .title = "A general coefficient of similarity and some of its properties",
          .venue = "Biometrics 27(4), 857–871",
          .doi = "10.2307/2528823"};
}

Reference mendelevitch_lesh_2021() {
  return {.authors = "Mendelevitch, O. and Lesh, M. D.",
          .year = 2021,
          .title = "Fidelity and privacy of synthetic medical data",
          .venue = "arXiv:2101.08658",
          .url = "https://arxiv.org/abs/2101.08658"};
}

Reference syntheval_software() {
  return {.authors = "Urban Institute",
          .year = 2024,
          .title = "syntheval: evaluate the utility and disclosure risk of synthetic data",
          .venue = "R package",
          .url = "https://github.com/UrbanInstitute/syntheval",
          .software = "syntheval"};
}

Reference giomi_2023() {
  return {.authors = "Giomi, M., Boenisch, F., Wehmeyer, C. and Tasnádi, B.",
          .year = 2023,
          .title = "A unified framework for quantifying privacy risk in synthetic data",
          .venue = "Proceedings on Privacy Enhancing Technologies 2023(2), 312–328",
          .doi = "10.56553/popets-2023-0055"};
}

Reference anonymeter_software() {
  return {.authors = "Statice GmbH / Anonos",
          .year = 2025,
          .title = "anonymeter: unified framework for quantifying privacy risk in synthetic data",
          .venue = "Python package (source at commit 0188bdf5, 2025-05-13)",
          .url = "https://github.com/statice/anonymeter",
          .software = "anonymeter",
          .version = "1.0.0 (commit 0188bdf5)"};
}

Reference article29_2014() {
  return {.authors = "Article 29 Data Protection Working Party",
          .year = 2014,
          .title = "Opinion 05/2014 on anonymisation techniques",
          .venue = "WP216, adopted on 10 April 2014",
          .url =
              "https://ec.europa.eu/justice/article-29/documentation/opinion-recommendation/"
              "files/2014/wp216_en.pdf"};
}

Reference wilson_1927() {
  return {.authors = "Wilson, E. B.",
          .year = 1927,
          .title = "Probable inference, the law of succession, and statistical inference",
          .venue = "Journal of the American Statistical Association 22(158), 209–212",
          .doi = "10.1080/01621459.1927.10502953"};
}

Reference carlini_2022() {
  return {.authors = "Carlini, N., Chien, S., Nasr, M., Song, S., Terzis, A. and Tramèr, F.",
          .year = 2022,
          .title = "Membership inference attacks from first principles",
          .venue = "2022 IEEE Symposium on Security and Privacy (SP), 1897–1914",
          .doi = "10.1109/SP46214.2022.9833649"};
}

Reference chen_2020_gan_leaks() {
  return {
      .authors = "Chen, D., Yu, N., Zhang, Y. and Fritz, M.",
      .year = 2020,
      .title = "GAN-Leaks: a taxonomy of membership inference attacks against generative models",
      .venue =
          "Proceedings of the 2020 ACM SIGSAC Conference on Computer and Communications "
          "Security (CCS), 343–362",
      .doi = "10.1145/3372297.3417238"};
}

Reference stadler_oprisanu_troncoso_2022() {
  return {.authors = "Stadler, T., Oprisanu, B. and Troncoso, C.",
          .year = 2022,
          .title = "Synthetic data – anonymisation groundhog day",
          .venue = "31st USENIX Security Symposium, 1451–1468"};
}

Reference van_breugel_2023() {
  return {.authors = "van Breugel, B., Sun, H., Qian, Z. and van der Schaar, M.",
          .year = 2023,
          .title =
              "Membership inference attacks against synthetic data through overfitting "
              "detection",
          .venue =
              "Proceedings of the 26th International Conference on Artificial Intelligence "
              "and Statistics (AISTATS), PMLR 206, 3493–3514"};
}

Reference meeus_2023() {
  return {.authors = "Meeus, M., Guépin, F., Creţu, A.-M. and de Montjoye, Y.-A.",
          .year = 2023,
          .title =
              "Achilles' heels: vulnerable record identification in synthetic data "
              "publication",
          .venue =
              "Computer Security – ESORICS 2023, Lecture Notes in Computer Science 14345, "
              "380–399",
          .doi = "10.1007/978-3-031-51476-0_19"};
}

Reference loftsgaarden_quesenberry_1965() {
  return {.authors = "Loftsgaarden, D. O. and Quesenberry, C. P.",
          .year = 1965,
          .title = "A nonparametric estimate of a multivariate density function",
          .venue = "The Annals of Mathematical Statistics 36(3), 1049–1051",
          .doi = "10.1214/aoms/1177700079"};
}

Reference jagielski_ullman_oprea_2020() {
  return {
      .authors = "Jagielski, M., Ullman, J. and Oprea, A.",
      .year = 2020,
      .title = "Auditing differentially private machine learning: how private is private SGD?",
      .venue = "Advances in Neural Information Processing Systems 33 (NeurIPS 2020), 22205–22216",
      .url = "https://arxiv.org/abs/2006.07709"};
}

Reference nasr_2021() {
  return {
      .authors = "Nasr, M., Song, S., Thakurta, A., Papernot, N. and Carlini, N.",
      .year = 2021,
      .title = "Adversary instantiation: lower bounds for differentially private machine learning",
      .venue = "2021 IEEE Symposium on Security and Privacy (SP), 866–882",
      .doi = "10.1109/SP40001.2021.00069"};
}

Reference kairouz_oh_viswanath_2015() {
  return {.authors = "Kairouz, P., Oh, S. and Viswanath, P.",
          .year = 2015,
          .title = "The composition theorem for differential privacy",
          .venue =
              "Proceedings of the 32nd International Conference on Machine Learning, PMLR 37, "
              "1376–1385",
          .url = "https://proceedings.mlr.press/v37/kairouz15.html"};
}

Reference yeom_2018() {
  return {.authors = "Yeom, S., Giacomelli, I., Fredrikson, M. and Jha, S.",
          .year = 2018,
          .title = "Privacy risk in machine learning: analyzing the connection to overfitting",
          .venue = "2018 IEEE 31st Computer Security Foundations Symposium (CSF), 268–282",
          .doi = "10.1109/CSF.2018.00027"};
}

Reference clopper_pearson_1934() {
  return {
      .authors = "Clopper, C. J. and Pearson, E. S.",
      .year = 1934,
      .title = "The use of confidence or fiducial limits illustrated in the case of the binomial",
      .venue = "Biometrika 26(4), 404–413",
      .doi = "10.1093/biomet/26.4.404"};
}

Reference yoon_drumright_van_der_schaar_2020() {
  return {.authors = "Yoon, J., Drumright, L. N. and van der Schaar, M.",
          .year = 2020,
          .title =
              "Anonymization through data synthesis using generative adversarial networks "
              "(ADS-GAN)",
          .venue = "IEEE Journal of Biomedical and Health Informatics 24(8), 2378–2388",
          .doi = "10.1109/JBHI.2020.2980262"};
}

Reference synthcity_software() {
  return {.authors = "Qian, Z., Cebere, B.-C. and van der Schaar, M.",
          .year = 2023,
          .title =
              "Synthcity: facilitating innovative use cases of synthetic data in different "
              "data modalities",
          .venue = "arXiv:2301.07573",
          .url = "https://github.com/vanderschaarlab/synthcity",
          .software = "synthcity",
          .version = "0.2.12"};
}

Reference lumley_2004() {
  return {.authors = "Lumley, T.",
          .year = 2004,
          .title = "Analysis of complex survey samples",
          .venue = "Journal of Statistical Software 9(8), 1–19",
          .doi = "10.18637/jss.v009.i08",
          .software = "R package survey",
          .version = "4.1-1"};
}

Reference woodruff_1952() {
  return {.authors = "Woodruff, R. S.",
          .year = 1952,
          .title = "Confidence intervals for medians and other position measures",
          .venue = "Journal of the American Statistical Association 47(260), 635–646",
          .doi = "10.1080/01621459.1952.10483443"};
}

Reference kish_1965() {
  return {
      .authors = "Kish, L.", .year = 1965, .title = "Survey Sampling", .venue = "Wiley, New York"};
}

Reference judkins_1990() {
  return {.authors = "Judkins, D. R.",
          .year = 1990,
          .title = "Fay's method for variance estimation",
          .venue = "Journal of Official Statistics 6(3), 223–239"};
}

Reference binder_1983() {
  return {.authors = "Binder, D. A.",
          .year = 1983,
          .title = "On the variances of asymptotically normal estimators from complex surveys",
          .venue = "International Statistical Review 51(3), 279–292",
          .doi = "10.2307/1402588"};
}

// Statistical disclosure control measures (the sdc-risk family).
Reference samarati_sweeney_1998() {
  return {.authors = "Samarati, P. and Sweeney, L.",
          .year = 1998,
          .title =
              "Protecting privacy when disclosing information: k-anonymity and its enforcement "
              "through generalization and suppression",
          .venue = "Technical Report SRI-CSL-98-04, SRI International"};
}

Reference sweeney_2002() {
  return {.authors = "Sweeney, L.",
          .year = 2002,
          .title = "k-anonymity: a model for protecting privacy",
          .venue =
              "International Journal of Uncertainty, Fuzziness and Knowledge-Based Systems "
              "10(5), 557–570",
          .doi = "10.1142/S0218488502001648"};
}

Reference machanavajjhala_2007() {
  return {.authors = "Machanavajjhala, A., Kifer, D., Gehrke, J. and Venkitasubramaniam, M.",
          .year = 2007,
          .title = "l-diversity: privacy beyond k-anonymity",
          .venue = "ACM Transactions on Knowledge Discovery from Data 1(1), article 3",
          .doi = "10.1145/1217299.1217302"};
}

Reference li_li_venkatasubramanian_2007() {
  return {.authors = "Li, N., Li, T. and Venkatasubramanian, S.",
          .year = 2007,
          .title = "t-closeness: privacy beyond k-anonymity and l-diversity",
          .venue =
              "Proceedings of the 23rd IEEE International Conference on Data Engineering "
              "(ICDE), 106–115",
          .doi = "10.1109/ICDE.2007.367856"};
}

Reference benedetti_franconi_1998() {
  return {.authors = "Benedetti, R. and Franconi, L.",
          .year = 1998,
          .title = "Statistical and technological solutions for controlled data dissemination",
          .venue =
              "Pre-proceedings of New Techniques and Technologies for Statistics, Sorrento, "
              "225–232"};
}

Reference franconi_polettini_2004() {
  return {.authors = "Franconi, L. and Polettini, S.",
          .year = 2004,
          .title = "Individual risk estimation in mu-Argus: a review",
          .venue =
              "Privacy in Statistical Databases, Lecture Notes in Computer Science 3050, "
              "262–272, Springer",
          .doi = "10.1007/978-3-540-25955-8_20"};
}

Reference templ_kowarik_meindl_2015() {
  return {.authors = "Templ, M., Kowarik, A. and Meindl, B.",
          .year = 2015,
          .title = "Statistical disclosure control for micro-data using the R package sdcMicro",
          .venue = "Journal of Statistical Software 67(4), 1–36",
          .doi = "10.18637/jss.v067.i04"};
}

Reference sdcmicro_software() {
  return {.authors = "Templ, M., Meindl, B., Kowarik, A. and Gussenbauer, J.",
          .year = 2026,
          .title =
              "sdcMicro: statistical disclosure control methods for anonymization of data "
              "and risk estimation",
          .venue = "R package",
          .url = "https://github.com/sdcTools/sdcMicro",
          .software = "sdcMicro",
          .version = "5.8.1"};
}

Reference cohen_nissim_2020() {
  return {.authors = "Cohen, A. and Nissim, K.",
          .year = 2020,
          .title = "Towards formalizing the GDPR's notion of singling out",
          .venue = "Proceedings of the National Academy of Sciences 117(15), 8344–8352",
          .doi = "10.1073/pnas.1914598117"};
}

Reference nelder_wedderburn_1972() {
  return {.authors = "Nelder, J. A. and Wedderburn, R. W. M.",
          .year = 1972,
          .title = "Generalized linear models",
          .venue = "Journal of the Royal Statistical Society, Series A 135(3), 370–384",
          .doi = "10.2307/2344614"};
}

Reference mccullagh_1980() {
  return {.authors = "McCullagh, P.",
          .year = 1980,
          .title = "Regression models for ordinal data",
          .venue = "Journal of the Royal Statistical Society, Series B 42(2), 109–142",
          .doi = "10.1111/j.2517-6161.1980.tb01109.x"};
}

Reference r_software() {
  return {.authors = "R Core Team",
          .year = 2022,
          .title = "R: a language and environment for statistical computing",
          .venue = "R Foundation for Statistical Computing, Vienna",
          .url = "https://www.R-project.org/",
          .software = "R (stats: glm, lm, poly, scale; nnet::multinom; MASS::polr)",
          .version = "4.2.2 (nnet 7.3-18, MASS 7.3-58.2)"};
}

Reference esteban_hyland_raetsch_2017() {
  return {.authors = "Esteban, C., Hyland, S. L. and Rätsch, G.",
          .year = 2017,
          .title = "Real-valued (medical) time series generation with recurrent conditional GANs",
          .venue = "arXiv preprint 1706.02633",
          .doi = "10.48550/arXiv.1706.02633"};
}

Reference bailey_emad_wcorr() {
  return {.authors = "Bailey, P., Emad, A. and Sikali, E.",
          .year = 2023,
          .title =
              "wCorr: weighted correlations (vignette \"wCorr Formulas\", Emad, A. and "
              "Bailey, P.)",
          .venue = "R package version 1.9.6, American Institutes for Research",
          .url = "https://american-institutes-for-research.github.io/wCorr/"};
}

Reference conover_1999() {
  return {.authors = "Conover, W. J.",
          .year = 1999,
          .title =
              "Practical Nonparametric Statistics, 3rd edition (section 3.2, confidence "
              "interval for a quantile)",
          .venue = "Wiley, New York, ISBN 978-0-471-16068-7"};
}

Reference kulisch_2013() {
  return {.authors = "Kulisch, U.",
          .year = 2013,
          .title =
              "Computer Arithmetic and Validity: Theory, Implementation, and Applications, 2nd "
              "edition (the exact dot product in a long fixed-point accumulator)",
          .venue = "De Gruyter Studies in Mathematics 33, De Gruyter, Berlin",
          .doi = "10.1515/9783110301793"};
}

Reference neal_2015() {
  return {.authors = "Neal, R. M.",
          .year = 2015,
          .title = "Fast exact summation using small and large superaccumulators",
          .venue = "arXiv preprint 1505.05571",
          .doi = "10.48550/arXiv.1505.05571"};
}

Reference fellegi_holt_1976() {
  return {.authors = "Fellegi, I. P. and Holt, D.",
          .year = 1976,
          .title = "A systematic approach to automatic edit and imputation",
          .venue = "Journal of the American Statistical Association 71(353), 17-35",
          .doi = "10.1080/01621459.1976.10481472"};
}

Reference de_waal_pannekoek_scholtus_2011() {
  return {.authors = "de Waal, T., Pannekoek, J. and Scholtus, S.",
          .year = 2011,
          .title = "Handbook of Statistical Data Editing and Imputation",
          .venue = "Wiley, Hoboken",
          .doi = "10.1002/9780470904848"};
}

Reference fisher_1935() {
  return {.authors = "Fisher, R. A.",
          .year = 1935,
          .title = "The logic of inductive inference",
          .venue = "Journal of the Royal Statistical Society 98(1), 39-82",
          .doi = "10.2307/2342435"};
}

Reference patki_2016() {
  return {.authors = "Patki, N., Wedge, R. and Veeramachaneni, K.",
          .year = 2016,
          .title = "The Synthetic Data Vault",
          .venue =
              "2016 IEEE International Conference on Data Science and Advanced Analytics "
              "(DSAA), 399-410",
          .doi = "10.1109/DSAA.2016.49"};
}

Reference hudovernik_2024() {
  return {.authors = "Hudovernik, V., Jurkovič, M. and Štrumbelj, E.",
          .year = 2024,
          .title = "Benchmarking the fidelity and utility of synthetic relational data",
          .venue = "arXiv preprint",
          .url = "https://arxiv.org/abs/2410.03411"};
}

Reference alfons_templ_2013() {
  return {.authors = "Alfons, A. and Templ, M.",
          .year = 2013,
          .title =
              "Estimation of social exclusion indicators from complex surveys: the R "
              "package laeken",
          .venue = "Journal of Statistical Software 54(15), 1-25",
          .doi = "10.18637/jss.v054.i15"};
}

}  // namespace synthaudit::references
