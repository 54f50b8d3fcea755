#include "vec.hh"

namespace engine {

double clamp(double value, double low, double high) {
    if (value < low) {
        return low;
    }
    if (value > high) {
        return high;
    }
    return value;
}

int square(int x) {
    return x * x;
}

}  // namespace engine
