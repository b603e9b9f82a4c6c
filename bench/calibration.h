// The host's calibration figure, measured in every benchmark binary: one ristretto255 scalar
// multiplication through libsodium. docs/performance.md quotes it beside each figure so that
// results from different machines can be compared.
#pragma once
