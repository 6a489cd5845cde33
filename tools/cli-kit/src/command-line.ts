/**
 * Options of a command-line entry point: `--help` prints the usage (exit 0); anything the options
 * do not allow prints one line and exits 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export type CommandLineOptions = NonNullable<ParseArgsConfig['options']>;

type Values<O extends CommandLineOptions> = ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>>['values'];

export function parseCommandLine<O extends CommandLineOptions>(usage: string, options: O, argv: string[] = process.argv.slice(2)): Values<O> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Values<O>;
  } catch (e) {
    const first = usage.split('\n')[0]!.replace(/^usage:\s*/, '');
    console.error(`error: ${(e as Error).message.split('\n')[0]} (usage: ${first}; see --help)`);
    process.exit(2);
  }
}

/** A usage text generated from the options themselves (their defaults shown), for entry points with nothing more to say. */
export function generatedUsage(command: string, summary: string, options: CommandLineOptions): string {
  const lines = Object.entries(options).map(([name, o]) => {
    const flag = `--${name}${o.type === 'string' ? ' <value>' : ''}`;
    return `  ${flag.padEnd(24)}${o.default !== undefined ? `default ${String(o.default)}` : ''}`;
  });
  return [`usage: ${command} [options]`, '', summary, '', ...lines, `  ${'--help'.padEnd(24)}this text`].join('\n');
}
