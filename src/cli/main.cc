// Placeholder while the CLI is written; replaced by the subcommand table.
int main() { return 0; }
