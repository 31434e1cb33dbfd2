/** The part of `@anthropic-ai/sandbox-runtime`'s SandboxManager agt-mcp uses (the package is an optional peer). */

/** Filesystem and network rules in the runtime's own shape. */
export interface SandboxRuntimeRules {
  network: { allowedDomains: string[]; deniedDomains: string[] };
  filesystem: { denyRead: string[]; allowRead?: string[]; allowWrite: string[]; denyWrite: string[] };
}

/** SandboxManager, narrowed. */
export interface SandboxRuntime {
  initialize(config: SandboxRuntimeRules): Promise<void>;
  isSupportedPlatform(): boolean;
  checkDependencies(): { errors: string[]; warnings: string[] };
  wrapWithSandboxArgv(
    command: string,
    binShell: string | undefined,
    customConfig: Partial<SandboxRuntimeRules> | undefined,
    abortSignal: AbortSignal | undefined,
    cwd: string | undefined,
    options: { commandId?: string; commandText?: string },
  ): Promise<{ argv: string[] }>;
  registerCommandNetworkLists(commandId: string, lists: { allowedDomains?: string[] }): void;
  unregisterCommandNetworkLists(commandId: string): void;
  annotateStderrWithSandboxFailures(command: string, stderr: string): string;
  getConfig(): SandboxRuntimeRules | undefined;
  updateConfig(config: SandboxRuntimeRules): void;
  reset(): Promise<void>;
}
