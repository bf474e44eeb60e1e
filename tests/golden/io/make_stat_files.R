# Writes Stata, SPSS and SAS versions of tests/data/sd2011/train.csv with R's haven (Debian
# r-cran-haven 2.5.1, which writes through ReadStat's writers): the categorical columns as
# labelled integer codes (value labels = the CSV's levels), a variable label on every column.
# The same audit from these files and from train.csv must give identical results.tsv
# (tests/cli/stat_files.sh). Run from the repository root:
#   Rscript tests/golden/io/make_stat_files.R
library(haven)

out <- "tests/data/sd2011"
train <- read.csv(file.path(out, "train.csv"), na.strings = "NA", stringsAsFactors = FALSE)
labels <- c(sex = "Sex", age = "Age in years", edu = "Highest level of education",
            marital = "Marital status", income = "Personal net monthly income (PLN)",
            ls = "Perception of life as a whole", smoke = "Smokes cigarettes")

# Each character column becomes integer codes 1..k with value labels in sorted order (a factor);
# NA stays system-missing.
coded <- train
for (name in names(coded)) {
  if (is.character(coded[[name]])) coded[[name]] <- factor(coded[[name]])
  attr(coded[[name]], "label") <- labels[[name]]
}

gz <- function(path) {
  system2("gzip", c("-9", "-n", "-f", path))
}

write_dta(coded, file.path(out, "train.dta"), version = 14)
gz(file.path(out, "train.dta"))
write_sav(coded, file.path(out, "train.zsav"), compress = "zsav")
# SAS transport files carry no value labels: the categorical columns are written as text.
as_text <- train
for (name in names(as_text)) attr(as_text[[name]], "label") <- labels[[name]]
write_xpt(as_text, file.path(out, "train.xpt"), version = 8, name = "TRAIN")
gz(file.path(out, "train.xpt"))
# SAS data sets keep value labels in a separate format catalog, which haven does not write: the
# categorical columns as text here too. (haven's write_sas is deprecated but writes a file that
# ReadStat and SAS read.)
write_sas(as_text, file.path(out, "train.sas7bdat"))
gz(file.path(out, "train.sas7bdat"))

# SPSS user-missing values: income's -8 ("no income") declared missing in the file, which must
# read as the missing code income=-8 given on the command line does.
declared <- coded
declared$income <- labelled_spss(train$income, labels = c("no income" = -8), na_values = -8,
                                 label = labels[["income"]])
write_sav(declared, file.path(out, "train_declared_missing.zsav"), compress = "zsav")

# Small files for the unit tests (tests/unit/stat_file_test.cpp): missing values a file declares.
small <- "tests/data/stat"
dir.create(small, showWarnings = FALSE)
# Stata: a tagged missing value (.a, labelled "refused"), a system-missing one, a labelled value
# (1 = "one") beside unlabelled ones, and a string column with an empty string.
tagged <- data.frame(id = c(1, 2, 3, 4, 5))
tagged$x <- labelled(c(1, 2, tagged_na("a"), NA, 5), labels = c(one = 1, refused = tagged_na("a")),
                     label = "A labelled number")
tagged$s <- c("a", "b", "", "c", "d")
write_dta(tagged, file.path(small, "tagged_missing.dta"), version = 15)
# SPSS: user-missing values as a range (97 to 99) in an unlabelled column, and a discrete one (9)
# in a labelled column.
spss <- data.frame(id = c(1, 2, 3, 4, 5))
spss$n <- labelled_spss(c(10, 97, 20, 99, 98), na_range = c(97, 99), label = "Hours")
spss$z <- labelled_spss(c(1, 2, 9, 1, 2), labels = c(yes = 1, no = 2, refused = 9), na_values = 9)
write_sav(spss, file.path(small, "user_missing.sav"))
