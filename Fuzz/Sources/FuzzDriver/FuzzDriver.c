// Only the declaration in include/FuzzDriver.h matters; SwiftPM wants a
// source file in every C target.
#include "FuzzDriver.h"
