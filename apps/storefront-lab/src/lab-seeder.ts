import { Injectable, OnModuleInit } from '@nestjs/common';
import { seedStorefront } from '@verdict/storefront';
import { DataSource } from 'typeorm';

/** Seeds the synthetic storefront once the migrations have run. */
@Injectable()
export class LabSeeder implements OnModuleInit {
  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): Promise<void> {
    return seedStorefront(this.dataSource);
  }
}
