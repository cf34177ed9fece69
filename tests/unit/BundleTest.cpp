#include "gestell/Bundle.h"
#include <gtest/gtest.h>
TEST(Bundle, StageNames) {
  EXPECT_EQ(gestell::stageName(gestell::Stage::SASSAlt), "sass-alt");
}
