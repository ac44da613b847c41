// Only on the include path of the TSan build (scripts/sanitize tsan). protobuf's map_field.h gives
// MapFieldBase two more members when __SANITIZE_THREAD__ is defined, but Debian's libprotobuf was
// built without TSan: the map fields' layout then differs between nhsim's code and the library
// (Struct's fields map, built by libprotobuf, read at the wrong offset by nhsim's inline code:
// a SEGV). This reads protobuf's header as the library was built; nothing else changes.
#pragma push_macro("__SANITIZE_THREAD__")
#undef __SANITIZE_THREAD__
#include_next <google/protobuf/map_field.h>
#pragma pop_macro("__SANITIZE_THREAD__")
