import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ActionContextStore,
  ApprovalService,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InMemoryTrajectoryStore,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { DataSource } from 'typeorm';
import { StorefrontAbilityFactory } from '../authorization/storefront-ability.factory.js';
import { RefundCapabilities } from '../capabilities/refund.capabilities.js';
import { ShipmentCapabilities } from '../capabilities/shipment.capabilities.js';
import { StorefrontCapabilities } from '../capabilities/storefront.capabilities.js';
import { SupportCapabilities } from '../capabilities/support.capabilities.js';
import { RecordsCapabilities } from '../records/records.capabilities.js';
import { openSqliteStorefront } from '../seed/open-sqlite-storefront.js';

/** One fresh storefront with every capability behind Verdict, for one evaluation case. */
export interface StorefrontSandbox {
  readonly dataSource: DataSource;
  readonly verdict: VerdictService;
  readonly approvals: ApprovalService;
  readonly contexts: ActionContextStore;
  readonly tools: VerdictTools;
  readonly refunds: RefundCapabilities;
  readonly records: RecordsCapabilities;
  readonly evidence: InMemoryEvidenceRecorder;
  close(): Promise<void>;
}

/**
 * Opens a sandbox: the seeded storefront on a private in-memory SQLite database, Verdict with in-memory
 * stores for every gate, and the storefront, shipment, support, refund and records capabilities. Cases
 * never share one, so their side effects cannot leak into each other.
 */
export async function openStorefrontSandbox(): Promise<StorefrontSandbox> {
  const dataSource = await openSqliteStorefront();
  const evidence = new InMemoryEvidenceRecorder();
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: new StorefrontAbilityFactory(dataSource),
        evidence,
        executionClaims: new InMemoryExecutionClaimStore(),
        rateLimits: new InMemoryRateLimitStore(),
        approvals: new InMemoryApprovalReceiptStore(),
        trajectories: new InMemoryTrajectoryStore(),
      }),
      VerdictLangChainModule,
    ],
    providers: [
      { provide: DataSource, useValue: dataSource },
      StorefrontCapabilities,
      ShipmentCapabilities,
      SupportCapabilities,
      RefundCapabilities,
      RecordsCapabilities,
    ],
  })
  class SandboxModule {}
  let app: INestApplicationContext;
  try {
    app = await NestFactory.createApplicationContext(SandboxModule, { logger: false });
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return {
    dataSource,
    evidence,
    verdict: app.get(VerdictService),
    approvals: app.get(ApprovalService),
    contexts: app.get(ActionContextStore),
    tools: app.get(VerdictTools),
    refunds: app.get(RefundCapabilities),
    records: app.get(RecordsCapabilities),
    close: async () => {
      await app.close();
      await dataSource.destroy();
    },
  };
}

/** Runs `work` in a fresh sandbox and closes it afterwards, whatever happens. */
export async function inStorefrontSandbox<T>(work: (sandbox: StorefrontSandbox) => Promise<T>): Promise<T> {
  const sandbox = await openStorefrontSandbox();
  try {
    return await work(sandbox);
  } finally {
    await sandbox.close();
  }
}
