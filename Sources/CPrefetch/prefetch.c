// CPrefetch is header-only (see include/CPrefetch.h); SwiftPM needs one source file per target.
#include "CPrefetch.h"
