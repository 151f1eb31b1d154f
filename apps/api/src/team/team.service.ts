import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';

import {
  AppError,
  AuditLog,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PageQueryDto,
  paginate,
  Paginated,
  PlanService,
  Principal,
  PrincipalCache,
} from '@app/common';
import { ApiKey, User, WorkspaceMember } from '@app/database';
import { WebhookOutbox } from '@app/webhooks';

import { AddMemberDto } from './dto/add-member.dto';
import { memberView, MemberView } from './dto/member.view';
import { UpdateMemberDto } from './dto/update-member.dto';
import { WorkspaceView } from './dto/workspace.view';

/** Postgres' unique_violation: the member was added by a concurrent request. */
const UNIQUE_VIOLATION = '23505';

/** A workspace's name: its owner's username, else its e-mail. */
const nameOf = (owner: Pick<User, 'username' | 'email'>) => owner.username || owner.email;

/**
 * The members of the caller's workspace (CONTRACT "Teams, workspaces and API keys"). The
 * workspace is `auth.user` (its owner), whoever acts. Every change writes its audit entry and
 * its webhook events in its own transaction, then drops the member's cached place in the
 * workspace on every replica (PrincipalCache) once it has committed, so a removal or a lowered
 * role holds on the member's next request.
 */
@Injectable()
export class TeamService {
  constructor(
    @InjectRepository(WorkspaceMember) private readonly members: Repository<WorkspaceMember>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly audit: AuditLog,
    private readonly outbox: WebhookOutbox,
    private readonly principals: PrincipalCache,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<MemberView>> {
    const qb = this.members
      .createQueryBuilder('m')
      .innerJoinAndSelect('m.user', 'u')
      .where('m.workspaceId = :workspaceId', { workspaceId: auth.user.id });
    return paginate(qb, query, 'members', (m) => memberView(m, m.user as User));
  }

  /**
   * Adds an existing user (by e-mail, any case). The owner's plan flag `team` gates it (403) and
   * its `count` caps the members (0 = unlimited), counted per workspace by
   * PlanService.createCounted (concurrent adds cannot pass it together).
   */
  async add(auth: Principal, dto: AddMemberDto): Promise<MemberView> {
    this.plans.assertFeature(auth, 'team');
    const workspaceId = auth.user.id;
    const user = await this.db
      .getRepository(User)
      .createQueryBuilder('u')
      .where('lower(u.email) = lower(:email)', { email: dto.email })
      .getOne();
    if (!user) throw new AppError(404, 'email: no user has this e-mail address');
    if (user.id === auth.actor.id) throw new BadRequestError('email: you cannot add yourself');
    if (user.id === workspaceId)
      throw new BadRequestError("email: this user is the workspace's owner");

    const existing = await this.members.findOneBy({ workspaceId, userId: user.id });
    if (existing) throw this.alreadyMember(existing.id);
    let view: MemberView | undefined;
    await this.plans
      .createCounted(
        auth,
        'team',
        WorkspaceMember,
        { userId: user.id, role: dto.role },
        async (em, member) => {
          view = memberView(member, user);
          await this.outbox.record(em, workspaceId, 'member.added', view);
          await this.audit.record(em, auth, {
            action: 'member.add',
            resource: { type: 'member', id: member.id },
            changes: ['email', 'role'],
          });
        },
        'workspaceId',
      )
      .catch((err: unknown) => {
        // two adds of one user at once: the unique constraint keeps one
        if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw this.alreadyMember();
        throw err;
      });
    // "not a member" is cached too: the new member may act at once
    await this.principals.forgetMember(workspaceId, user.id);
    return view as MemberView;
  }

  /** Changes a member's role; a lowered role holds on the member's next request, on every replica. */
  async update(auth: Principal, id: number, dto: UpdateMemberDto): Promise<MemberView> {
    const workspaceId = auth.user.id;
    const view = await this.db.transaction(async (em) => {
      const member = await this.lockMember(em, workspaceId, id);
      member.role = dto.role;
      await em.update(WorkspaceMember, { id }, { role: dto.role });
      await this.audit.record(em, auth, {
        action: 'member.update',
        resource: { type: 'member', id },
        changes: ['role'],
      });
      return memberView(member, await this.userOf(em, member));
    });
    await this.principals.forgetMember(workspaceId, view.userid);
    return view;
  }

  /**
   * Removes a member and the named keys it made for this workspace, in one transaction; both stop
   * working on every replica once it has committed. The owner has no membership: its id is a 404.
   */
  async remove(auth: Principal, id: number): Promise<void> {
    const workspaceId = auth.user.id;
    const { userId, keyIds } = await this.db.transaction(async (em) => {
      const member = await this.lockMember(em, workspaceId, id);
      const user = await this.userOf(em, member);
      await em.delete(WorkspaceMember, { id });
      const { raw } = await em
        .createQueryBuilder()
        .delete()
        .from(ApiKey)
        .where('workspace_id = :workspaceId AND user_id = :userId', {
          workspaceId,
          userId: member.userId,
        })
        .returning('id')
        .execute();
      await this.outbox.record(em, workspaceId, 'member.removed', memberView(member, user));
      await this.audit.record(em, auth, {
        action: 'member.remove',
        resource: { type: 'member', id },
        changes: [],
      });
      return { userId: member.userId, keyIds: (raw as Array<{ id: number }>).map((k) => k.id) };
    });
    await this.principals.forgetMember(workspaceId, userId);
    if (keyIds.length) await this.principals.forgetKeys(keyIds);
  }

  /**
   * The workspaces the caller belongs to: its own first (role `owner`), then those it is a
   * member of, in the order it joined them. Whatever `X-Workspace` says, these are the actor's;
   * a named key acts in one workspace only, so with one the list holds that workspace alone.
   */
  async workspaces(auth: Principal): Promise<WorkspaceView[]> {
    if (auth.key) return [{ id: auth.user.id, name: nameOf(auth.user), role: auth.role }];
    const { actor } = auth;
    const rows: Array<{
      id: number;
      role: WorkspaceView['role'];
      username: string;
      email: string;
    }> = await this.db.query(
      `SELECT m.workspace_id AS id, m.role, u.username, u.email
           FROM workspace_members m JOIN users u ON u.id = m.workspace_id
          WHERE m.user_id = $1
          ORDER BY m.id`,
      [actor.id],
    );
    return [
      { id: actor.id, name: nameOf(actor), role: 'owner' },
      ...rows.map((r) => ({ id: r.id, name: nameOf(r), role: r.role })),
    ];
  }

  /** The membership `id` of the workspace, locked for the change; 404 when it is not one. */
  private async lockMember(
    em: EntityManager,
    workspaceId: number,
    id: number,
  ): Promise<WorkspaceMember> {
    const member = await em.findOne(WorkspaceMember, {
      where: { id, workspaceId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!member) throw new NotFoundError('Member');
    return member;
  }

  private async userOf(em: EntityManager, member: WorkspaceMember): Promise<User> {
    return em.findOneOrFail(User, {
      select: { id: true, email: true, username: true },
      where: { id: member.userId },
    });
  }

  private alreadyMember(id?: number): ConflictError {
    return new ConflictError(
      `email: this user is already a member of the workspace${id ? ` (id ${id})` : ''}`,
    );
  }
}
