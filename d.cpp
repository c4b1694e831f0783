#include <cstdint>
int main(){}
