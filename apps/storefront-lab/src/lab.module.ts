import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { VerdictModule } from '@verdict/nestjs';
import { VerdictLangChainModule } from '@verdict/nestjs/langchain';
import {
  TypeOrmApprovalReceiptStore,
  TypeOrmEvidenceRecorder,
  TypeOrmExecutionClaimStore,
  TypeOrmRateLimitStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import {
  RefundCapabilities,
  ShipmentCapabilities,
  StorefrontAbilityFactory,
  StorefrontCapabilities,
  StorefrontContexts,
  SupportCapabilities,
  storefrontEntities,
  storefrontMigrations,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { CrossCustomerComparison } from './comparison/cross-customer.comparison.js';
import { GateScenarios } from './gates/gate-scenarios.js';
import { ConfirmationScenario } from './approvals/confirmation.scenario.js';
import { LabController } from './lab.controller.js';
import type { LabOptions } from './lab-options.js';
import { LabSeeder } from './lab-seeder.js';
import { DestinationReleaseScenario } from './releases/destination-release.scenario.js';
import { LabReleasePolicies } from './releases/lab-release-policies.js';

/**
 * The storefront lab: the synthetic storefront on embedded SQLite, Verdict with TypeORM evidence, and
 * the comparison endpoints. Every lab runs as customer 72 of tenant `acme`.
 */
@Module({})
export class LabModule {
  static forRoot(options: LabOptions): DynamicModule {
    return {
      module: LabModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: options.database,
          entities: [...storefrontEntities, ...verdictEntities],
          migrations: [...storefrontMigrations, ...verdictMigrations],
          migrationsRun: true,
        }),
        VerdictModule.forRootAsync({
          inject: [DataSource],
          useFactory: (dataSource: DataSource) => ({
            abilityFactory: new StorefrontAbilityFactory(dataSource),
            evidence: new TypeOrmEvidenceRecorder(dataSource),
            executionClaims: new TypeOrmExecutionClaimStore(dataSource),
            rateLimits: new TypeOrmRateLimitStore(dataSource),
            approvals: new TypeOrmApprovalReceiptStore(dataSource),
            publicMessage: 'I cannot do that for you.',
            // The lab's approval route: every lab runs as customer 72, who approves only calls they asked for
            // (the default requester is the approver's own context, so no other conversation is ever found).
            approvalEndpoint: {
              approver: () => ({ id: 'customer:72', context: StorefrontContexts.customer72 }),
              canAccessToolCall: () => true,
            },
          }),
        }),
        VerdictLangChainModule,
      ],
      controllers: [LabController],
      providers: [
        LabSeeder,
        StorefrontCapabilities,
        ShipmentCapabilities,
        SupportCapabilities,
        RefundCapabilities,
        CrossCustomerComparison,
        GateScenarios,
        ConfirmationScenario,
        LabReleasePolicies,
        DestinationReleaseScenario,
      ],
    };
  }
}
