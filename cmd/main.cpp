#include "app.hpp"

int main(int argc, char** argv) { return mcphealth::cli::mcphealth_main(argc, argv); }
