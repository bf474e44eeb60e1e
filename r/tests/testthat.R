library(testthat)
library(synthaudit)
test_check("synthaudit")
