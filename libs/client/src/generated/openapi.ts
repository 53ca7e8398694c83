// Generated from docs/openapi.json by openapi-typescript (npm run openapi). Do not edit.
export interface paths {
    "/admin/v1/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account (answers its Basic credentials once)
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1Accounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{account_id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a project-level API key
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1AccountsAccountIdApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{account_id}/credentials/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset an account's password
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1AccountsAccountIdCredentialsReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{account_id}/lines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a line for an account
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1AccountsAccountIdLines"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys (no secrets)
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1ApiKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description See docs/admin-api.md.
         */
        delete: operations["deleteAdminV1ApiKeysKeyId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/api-keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an API key
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1ApiKeysKeyIdRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List production runs of every account, newest first (filter by account, line and status)
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1Runs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List oversight tasks of every account, newest first (filter by workstream and state)
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1Tasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a worker (answers its token once)
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1Workers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a workstream
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1Workstreams"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a workstream API key
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1WorkstreamsWorkstreamIdApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/buckets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mount a bucket (driver fs or s3) for oversight tasks
         * @description See docs/oversight-api.md.
         */
        post: operations["postAdminV1WorkstreamsWorkstreamIdBuckets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/configurations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a workstream configuration
         * @description See docs/performance-api.md.
         */
        post: operations["postAdminV1WorkstreamsWorkstreamIdConfigurations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/reports/quality": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Quality report of any workstream
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1WorkstreamsWorkstreamIdReportsQuality"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/reports/throughput": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Throughput report of any workstream
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1WorkstreamsWorkstreamIdReportsThroughput"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/task-quota": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a workstream's task-creation quota: limits in force and use in the current windows
         * @description See docs/oversight-api.md.
         */
        get: operations["getAdminV1WorkstreamsWorkstreamIdTaskQuota"];
        /**
         * Set a workstream's task-creation limits (null or left out: the default); in force on every gateway when answered
         * @description See docs/oversight-api.md.
         */
        put: operations["putAdminV1WorkstreamsWorkstreamIdTaskQuota"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console (worker and operator views)
         * @description See docs/console.md.
         */
        get: operations["getConsole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/console.css": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console styles
         * @description See docs/console.md.
         */
        get: operations["getConsoleConsoleCss"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/console.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console script
         * @description See docs/console.md.
         */
        get: operations["getConsoleConsoleJs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This API description as an interactive page (Swagger UI)
         * @description See docs/operations.md.
         */
        get: operations["getDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/asyncapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The Kafka topics and their events (AsyncAPI 3 JSON)
         * @description See docs/events.md.
         */
        get: operations["getDocsAsyncapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This API description (OpenAPI 3.1 JSON)
         * @description See docs/operations.md.
         */
        get: operations["getDocsOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/swagger-ui/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The interactive page's files (Swagger UI, from the gateway's own node_modules)
         * @description See docs/operations.md.
         */
        get: operations["getDocsSwaggerUiFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/v3-migration.md": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Migration notes from platform API v3 to v4
         * @description See docs/v3-migration.md.
         */
        get: operations["getDocsV3MigrationMd"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness of the gateway (PostgreSQL, Redis, Kafka): {status} for anyone; every component with the admin token (optional Bearer)
         * @description See docs/operations.md.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process is up
         * @description See docs/operations.md.
         */
        get: operations["getHealthLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness (the same checks and answers as /health)
         * @description See docs/operations.md.
         */
        get: operations["getHealthReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/media/tasks/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the media of a task (signed URL given to workers)
         * @description See docs/oversight-api.md.
         */
        get: operations["getMediaTasksTaskId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text format)
         * @description See docs/operations.md.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/uploads/media/{media_key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Upload media to a presigned URL
         * @description See docs/oversight-api.md.
         */
        put: operations["putUploadsMediaMediaKey"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/uploads/performance/{upload_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Upload a CSV file to a presigned URL
         * @description See docs/performance-api.md.
         */
        put: operations["putUploadsPerformanceUploadId"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Describe the API key used
         * @description See docs/admin-api.md.
         */
        get: operations["getV1ApiKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook and callback deliveries
         * @description See docs/webhooks.md.
         */
        get: operations["getV1Deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a delivery with its attempts
         * @description See docs/webhooks.md.
         */
        get: operations["getV1DeliveriesId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again
         * @description See docs/webhooks.md.
         */
        post: operations["postV1DeliveriesIdRedeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/signed-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get a presigned media upload URL
         * @description See docs/oversight-api.md.
         */
        post: operations["postV1SignedUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an oversight task
         * @description See docs/oversight-api.md.
         */
        post: operations["postV1Tasks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an oversight task
         * @description See docs/oversight-api.md.
         */
        get: operations["getV1TasksId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/performance/generate-presigned-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get a presigned URL for a bulk CSV upload
         * @description See docs/performance-api.md.
         */
        post: operations["postV1WorkstreamsWorkstreamIdPerformanceGeneratePresignedUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/performance/uploads/{upload_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * State of a bulk CSV upload
         * @description See docs/performance-api.md.
         */
        get: operations["getV1WorkstreamsWorkstreamIdPerformanceUploadsUploadId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/reports/quality": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Quality report
         * @description See docs/performance-api.md.
         */
        get: operations["getV1WorkstreamsWorkstreamIdReportsQuality"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/reports/throughput": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Throughput report
         * @description See docs/performance-api.md.
         */
        get: operations["getV1WorkstreamsWorkstreamIdReportsThroughput"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/task_completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a task completion record
         * @description See docs/performance-api.md.
         */
        post: operations["postV1WorkstreamsWorkstreamIdTaskCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/task_reviewed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a quality review record
         * @description See docs/performance-api.md.
         */
        post: operations["postV1WorkstreamsWorkstreamIdTaskReviewed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a task (deprecated: use POST /v4/runs)
         * @description See docs/platform-api.md.
         */
        post: operations["postV3Tasks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/tasks/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a task (deprecated: use GET /v4/runs/{id})
         * @description See docs/platform-api.md.
         */
        get: operations["getV3TasksTaskId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v4/lines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's lines
         * @description See docs/platform-api.md.
         */
        get: operations["getV4Lines"];
        put?: never;
        /**
         * Create a line (lines are provisioned by Workline: always 403)
         * @description See docs/platform-api.md.
         */
        post: operations["postV4Lines"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v4/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a run
         * @description See docs/platform-api.md.
         */
        post: operations["postV4Runs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v4/runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a run with a page of its units
         * @description See docs/platform-api.md.
         */
        get: operations["getV4RunsId"];
        put?: never;
        post?: never;
        /**
         * Runs cannot be deleted (403; 404 for another account's run)
         * @description See docs/platform-api.md.
         */
        delete: operations["deleteV4RunsId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v4/runs/{id}/abort": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Abort a run
         * @description See docs/platform-api.md.
         */
        post: operations["postV4RunsIdAbort"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workforce/v1/assignments/{id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete an assignment
         * @description See docs/work-api.md.
         */
        post: operations["postWorkforceV1AssignmentsIdComplete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workforce/v1/assignments/{id}/flag": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Flag an assignment
         * @description See docs/work-api.md.
         */
        post: operations["postWorkforceV1AssignmentsIdFlag"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workforce/v1/assignments/next": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lease the next unit or task
         * @description See docs/work-api.md.
         */
        post: operations["postWorkforceV1AssignmentsNext"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AdminRunAnswer: {
            id: string;
            account_id: string;
            line_id: string;
            /** @enum {string} */
            api: "v4" | "v3";
            /** @enum {string} */
            status: "Processing" | "Processed";
            unit_count: number;
            pending_units: number;
            abort_requested: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            processed_at?: string | null;
        };
        AdminTaskAnswer: {
            workstream_id: string;
            account_id: string;
            task_id: string;
            /** @enum {string} */
            state: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "ERROR";
            media_key: string;
            configuration_id: string;
            bucket_id?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            result?: components["schemas"]["TaskResultAnswer"] | null;
            error?: components["schemas"]["TaskErrorAnswer"] | null;
        };
        ApiKeyAnswer: {
            prefix: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_used_at?: string | null;
            /** Format: date-time */
            revoked_at?: string | null;
            /** Format: date-time */
            expires_at?: string | null;
            rotated_from_id?: string | null;
            id: string;
            /** @enum {string} */
            scope: "account" | "workstream";
            account_id: string;
            workstream_id?: string | null;
        };
        ApiKeyDescriptionAnswer: {
            id: string;
            /** @enum {string} */
            scope: "account" | "workstream";
            account_id: string;
            workstream_id?: string | null;
        };
        AssignmentOutcomeAnswer: {
            assignment_id: string;
            /** @enum {string|null} */
            status?: "Completed" | "Flagged" | null;
            /** @enum {string|null} */
            kind?: "unit" | "task" | null;
            task_id?: string | null;
            /** @enum {string|null} */
            state?: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "ERROR" | null;
            next?: (components["schemas"]["UnitAssignmentAnswer"] | components["schemas"]["TaskAssignmentAnswer"]) | null;
        };
        BucketAnswer: {
            id: string;
            workstream_id: string;
            /** @enum {string} */
            driver: "fs" | "s3";
            root?: string | null;
            endpoint?: string | null;
            region?: string | null;
            bucket?: string | null;
            prefix?: string | null;
            access_key_id?: string | null;
            force_path_style?: boolean | null;
            /** Format: date-time */
            created_at: string;
        };
        CompleteTaskAssignmentDto: {
            updated_tags: components["schemas"]["TagDto"][];
            metadata?: components["schemas"]["MetadataItemDto"][] | null;
            next?: components["schemas"]["NextAssignmentDto"];
        };
        CompleteUnitAssignmentDto: {
            output: {
                [key: string]: unknown;
            };
            next?: components["schemas"]["NextAssignmentDto"];
        };
        ConfigurationAnswer: {
            id: string;
            workstream_id: string;
            name: string;
            extended_events: boolean;
            tool_project_id?: string | null;
            /** Format: date-time */
            created_at: string;
        };
        CreateAccountDto: {
            name: string;
        };
        CreateBucketDto: {
            /** @enum {string} */
            driver: "fs" | "s3";
            root?: string;
            endpoint?: string;
            region?: string;
            bucket?: string;
            prefix?: string;
            access_key_id?: string;
            secret_access_key?: string;
            force_path_style?: boolean;
        };
        CreateConfigurationDto: {
            name: string;
            extended_events?: boolean | null;
            tool_project_id?: string | null;
        };
        CreateLineDto: {
            name: string;
        };
        CreateMediaGrantDto: {
            configuration_id: string;
        };
        CreateRunBody: {
            line_id: string;
            callback_url?: string | null;
            units: {
                [key: string]: unknown;
            }[];
        };
        CreateTaskDto: {
            media_key: string;
            configuration_id: string;
            bucket_id?: string | null;
            callback_url?: string | null;
            existing_tags?: components["schemas"]["TagDto"][] | null;
            metadata?: components["schemas"]["MetadataItemDto"][] | null;
        };
        CreateV3TaskBody: {
            template_id: string;
            callback_url?: string | null;
            resources: {
                [key: string]: unknown;
            }[];
        };
        CreateWorkerDto: {
            /** Format: email */
            email: string;
            name: string;
        };
        CreateWorkstreamDto: {
            account_id: string;
            name: string;
            use_cases: components["schemas"]["UseCaseDto"][];
            qc_score_threshold?: number | null;
            qc_sample_rate?: number | null;
        };
        CredentialsAnswer: {
            id: string;
            username: string;
            password: string;
        };
        DeliveryAnswer: {
            id: string;
            event_type: string;
            task_id?: string | null;
            run_id?: string | null;
            url: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "dead";
            attempt_count: number;
            /** Format: date-time */
            next_attempt_at?: string | null;
            last_status_code?: number | null;
            last_error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            delivered_at?: string | null;
            /** Format: date-time */
            dead_at?: string | null;
        };
        DeliveryAttemptAnswer: {
            number: number;
            /** Format: date-time */
            attempted_at: string;
            status_code?: number | null;
            duration_ms: number;
            error?: string | null;
            response_excerpt?: string | null;
        };
        DeliveryDetailAnswer: {
            attempts: components["schemas"]["DeliveryAttemptAnswer"][];
            id: string;
            event_type: string;
            task_id?: string | null;
            run_id?: string | null;
            url: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "dead";
            attempt_count: number;
            /** Format: date-time */
            next_attempt_at?: string | null;
            last_status_code?: number | null;
            last_error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            delivered_at?: string | null;
            /** Format: date-time */
            dead_at?: string | null;
        };
        DeliveryPageAnswer: {
            deliveries: components["schemas"]["DeliveryAnswer"][];
            next_cursor?: string | null;
        };
        ErrorAnswer: {
            message: string;
            errors?: components["schemas"]["FieldErrorAnswer"][] | null;
            error_id?: string | null;
        };
        FieldErrorAnswer: {
            field: string;
            message: string;
        };
        FlagAssignmentDto: {
            reason: string;
            next?: components["schemas"]["NextAssignmentDto"];
        };
        GeneratePresignedUrlDto: {
            /** @enum {string} */
            kind: "quality" | "throughput";
            file_name?: string | null;
        };
        HealthAnswer: {
            /** @enum {string} */
            status: "ok" | "unavailable" | "draining";
            message?: string | null;
            components?: {
                [key: string]: {
                    /** @enum {unknown} */
                    status: "up" | "down";
                    detail?: string;
                    instance_id?: string;
                };
            } | null;
        };
        InternalErrorAnswer: {
            message: string;
            error_id: string;
        };
        LineAnswer: {
            id: string;
            name: string;
        };
        LiveAnswer: {
            /** @enum {string} */
            status: "ok";
        };
        MediaGrantAnswer: {
            media_upload_url: string;
            media_key: string;
            /** Format: date-time */
            expires_at: string;
        };
        MediaStoredAnswer: {
            media_key: string;
            content_type: string;
            size: number;
        };
        MessageAnswer: {
            message: string;
        };
        MetadataItemAnswer: {
            key: string;
            value: string;
        };
        MetadataItemDto: {
            key: string;
            value: string;
        };
        NewAccountAnswer: {
            name: string;
            id: string;
            username: string;
            password: string;
        };
        NewApiKeyAnswer: {
            id: string;
            key: string;
        };
        NewWorkerAnswer: {
            id: string;
            token: string;
        };
        NextAssignmentDto: {
            /** @enum {string} */
            kind: "unit" | "task";
            line_id?: string | null;
        };
        PerformanceUploadAnswer: {
            upload_id: string;
            workstream_id: string;
            /** @enum {string} */
            kind: "quality" | "throughput";
            file_name?: string | null;
            /** @enum {string} */
            state: "awaiting_upload" | "expired" | "queued" | "processing" | "completed" | "failed";
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            received_at?: string | null;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            bytes?: number | null;
            rows_processed: number;
            rows_accepted: number;
            rows_stored: number;
            rows_replaced: number;
            rows_duplicates_ignored: number;
            rows_rejected: number;
            rejections: components["schemas"]["UploadRejectionAnswer"][];
            rejections_truncated: boolean;
            failure?: string | null;
        };
        PresignedUploadAnswer: {
            upload_url: string;
            upload_id: string;
            /** Format: date-time */
            expires_at: string;
            /** @enum {string} */
            method: "PUT";
            /** @enum {string} */
            content_type: "text/csv";
        };
        QualityReportAnswer: {
            /** @enum {string} */
            kind: "quality";
            groups: components["schemas"]["QualityReportGroupAnswer"][];
            workstream_id: string;
            from?: string | null;
            to?: string | null;
            group_by?: string | null;
        };
        QualityReportGroupAnswer: {
            key?: string | null;
            count: number;
            mean_score: number;
            p50_score: number;
            p90_score: number;
            min_score: number;
            max_score: number;
            errors: {
                [key: string]: number;
            };
        };
        /** @description A quality review record (docs/performance-api.md). null counts as not sent; unknown fields are refused. Also checked by the service: date-times are real dates of years 0001-9999; workstream_id equals the path's; use_case_id is a use case of the workstream and task_definition_id one of its task definitions. */
        QualityReviewRecord: {
            workstream_id: string;
            use_case_id: string;
            task_definition_id: string;
            dataset_id?: string | null;
            asset_id?: string | null;
            task_id?: string | null;
            unique_id?: string | null;
            replace_duplicate?: boolean | null;
            /**
             * Format: uri
             * @description An absolute URL
             */
            task_url?: string | null;
            /** @description ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z (seconds, fraction and zone optional; no zone is UTC) */
            task_completed_at?: string | null;
            worker_id: string;
            /** @description ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z (seconds, fraction and zone optional; no zone is UTC) */
            review_completed_at: string;
            review_duration?: number | null;
            reviewed_by?: string | null;
            review_score: number;
            review_explanation?: string | null;
            errors?: {
                [key: string]: number;
            } | null;
            /** @enum {string|null} */
            review_type?: "QA" | "QC" | "Spot Check" | "Others" | null;
            task_review_count?: number | null;
            subtask_review_count?: number | null;
            review_metadata?: {
                [key: string]: string;
            } | null;
            review_measurements?: {
                [key: string]: (string | number | boolean) | number | string;
            } | null;
        };
        RecordAcceptedAnswer: {
            message?: string | null;
        };
        RotateApiKeyDto: {
            overlap_seconds: number;
        };
        RunAnswer: {
            /** Format: date-time */
            processed_at?: string | null;
            units: components["schemas"]["UnitAnswer"][];
            units_page?: components["schemas"]["UnitsPageAnswer"] | null;
            id: string;
            line_id: string;
            /** @enum {string} */
            status: "Processing" | "Processed";
            /** Format: date-time */
            created_at: string;
        };
        RunCreatedAnswer: {
            id: string;
            line_id: string;
            /** @enum {string} */
            status: "Processing" | "Processed";
            /** Format: date-time */
            created_at: string;
        };
        RunPageAnswer: {
            runs: components["schemas"]["AdminRunAnswer"][];
            next_cursor?: string | null;
        };
        SetTaskQuotaDto: {
            day?: number | null;
            week?: number | null;
            month?: number | null;
        };
        TagAnswer: {
            value: string;
            confidence_score: number;
        };
        TagDto: {
            value: string;
            confidence_score: number;
        };
        TaskAnswer: {
            task_id: string;
            /** @enum {string} */
            state: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "ERROR";
            media_key: string;
            configuration_id: string;
            bucket_id?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            result?: components["schemas"]["TaskResultAnswer"] | null;
            error?: components["schemas"]["TaskErrorAnswer"] | null;
        };
        TaskAssignmentAnswer: {
            assignment_id: string;
            /** @enum {string} */
            kind: "task";
            task_id: string;
            media_url: string;
            media_type: string;
            existing_tags: components["schemas"]["TagAnswer"][];
            metadata: components["schemas"]["MetadataItemAnswer"][];
            /** Format: date-time */
            lease_expires_at: string;
        };
        TaskCreatedAnswer: {
            task_id: string;
        };
        TaskErrorAnswer: {
            message: string;
        };
        TaskPageAnswer: {
            tasks: components["schemas"]["AdminTaskAnswer"][];
            next_cursor?: string | null;
        };
        TaskQuotaAnswer: {
            workstream_id: string;
            day: components["schemas"]["TaskQuotaWindowAnswer"];
            week: components["schemas"]["TaskQuotaWindowAnswer"];
            month: components["schemas"]["TaskQuotaWindowAnswer"];
        };
        TaskQuotaWindowAnswer: {
            limit: number;
            default_limit: number;
            custom: boolean;
            used?: number | null;
            /** Format: date-time */
            resets_at: string;
        };
        TaskResultAnswer: {
            updated_tags: components["schemas"]["TagAnswer"][];
            existing_tags: components["schemas"]["TagAnswer"][];
            metadata: components["schemas"]["MetadataItemAnswer"][];
        };
        /** @description A throughput (completed-task) record (docs/performance-api.md). null counts as not sent; unknown fields are refused. Also checked by the service: date-times are real dates of years 0001-9999; workstream_id, when sent, equals the path's; use_case_id is a use case of the workstream (required when task_definition_id is sent) and task_definition_id one of its task definitions; task_started_at is not after task_completed_at, and duration_seconds agrees with them (±1 s) when all three are sent. */
        ThroughputRecord: {
            workstream_id?: string | null;
            use_case_id?: string | null;
            task_definition_id?: string | null;
            dataset_id?: string | null;
            asset_id?: string | null;
            task_id?: string | null;
            unique_id?: string | null;
            replace_duplicate?: boolean | null;
            /**
             * Format: uri
             * @description An absolute URL
             */
            task_url?: string | null;
            worker_id: string;
            /** @description ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z (seconds, fraction and zone optional; no zone is UTC) */
            task_started_at?: string | null;
            /** @description ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z (seconds, fraction and zone optional; no zone is UTC) */
            task_completed_at: string;
            duration_seconds?: number | null;
            task_count?: number | null;
            subtask_count?: number | null;
            task_metadata?: {
                [key: string]: string;
            } | null;
        };
        ThroughputReportAnswer: {
            /** @enum {string} */
            kind: "throughput";
            groups: components["schemas"]["ThroughputReportGroupAnswer"][];
            workstream_id: string;
            from?: string | null;
            to?: string | null;
            group_by?: string | null;
        };
        ThroughputReportGroupAnswer: {
            key?: string | null;
            records: number;
            tasks: number;
            subtasks: number;
            duration_seconds: number;
            mean_duration_seconds?: number | null;
            tasks_per_hour?: number | null;
        };
        UnitAnswer: {
            input: {
                [key: string]: unknown;
            };
            output: {
                [key: string]: unknown;
            };
            meta: components["schemas"]["UnitMetaAnswer"];
        };
        UnitAssignmentAnswer: {
            assignment_id: string;
            /** @enum {string} */
            kind: "unit";
            run_id: string;
            line_id: string;
            input: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            lease_expires_at: string;
        };
        UnitMetaAnswer: {
            /** @enum {string} */
            status: "Processing" | "Completed" | "Flagged" | "Aborted";
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            processed_at?: string | null;
        };
        UnitsPageAnswer: {
            offset: number;
            limit?: number | null;
            total: number;
        };
        UploadRejectionAnswer: {
            row: number;
            errors: components["schemas"]["FieldErrorAnswer"][];
        };
        UseCaseDto: {
            id: string;
            task_definition_ids: string[];
        };
        V3ErrorAnswer: {
            /** @description The v3 error code (100-111, 401, 404, 500, or the HTTP status) */
            status: number;
            /** @description The code's description in the v3 code table, word for word (e.g. `Body is invalid`) */
            error: string;
            detail?: string | null;
            error_id?: string | null;
        };
        V3TaskAnswer: {
            /** Format: date-time */
            finished_at?: string | null;
            resources: {
                extra: {
                    status: string;
                };
            }[];
            template_id: string;
            task_id: string;
            /** @enum {string} */
            status: "In-Progress" | "Completed";
            /** Format: date-time */
            started_at: string;
        };
        V3TaskCreatedAnswer: {
            template_id: string;
            task_id: string;
            /** @enum {string} */
            status: "In-Progress" | "Completed";
            /** Format: date-time */
            started_at: string;
        };
        V4ErrorAnswer: {
            message: string;
            error_id?: string | null;
        };
        WorkstreamAnswer: {
            id: string;
            account_id: string;
            name: string;
            use_cases: components["schemas"]["UseCaseDto"][];
            qc_score_threshold: number;
            qc_sample_rate: number;
            /** Format: date-time */
            created_at: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description Requests per minute allowed to this credential (or, without a valid one, this address) in this API group; sent while the group's limit is on */
        "X-RateLimit-Limit": number;
        /** @description Requests left in the current window */
        "X-RateLimit-Remaining": number;
        /** @description Seconds until one more request is accepted */
        "X-RateLimit-Reset": number;
        /** @description Seconds to wait before trying again */
        "Retry-After": number;
        /** @description Retry-After: seconds to wait, when the service that did not answer in time said when to try again */
        "Retry-After-When-Known": number;
        /** @description Present when the answer replays an earlier creation with the same Idempotency-Key */
        "Idempotent-Replayed": "true";
        /** @description The authentication scheme the API group takes (RFC 9110) */
        "WWW-Authenticate": string;
        /** @description API version 3 is deprecated (RFC 9745) */
        Deprecation: "true";
        /** @description When version 3 is withdrawn (RFC 8594) */
        Sunset: "Mon, 25 Dec 2017 00:00:00 GMT";
        /** @description The migration notes (GET /docs/v3-migration.md), rel="deprecation" */
        Link: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    postAdminV1Accounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Acme"
                 *     }
                 */
                "application/json": components["schemas"]["CreateAccountDto"];
            };
        };
        responses: {
            /** @description The account */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70",
                     *       "name": "Acme",
                     *       "username": "acme-fcb691",
                     *       "password": "RG9oSkj-pxO34aplDYMOR11y"
                     *     }
                     */
                    "application/json": components["schemas"]["NewAccountAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1AccountsAccountIdApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The key (secret shown once) */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f2-9f50-7172-8e84-6da2c05b8fb4",
                     *       "key": "wlk_QK3sX2b9Vt0cJrHq7LmYp4NfAe8GdKw1"
                     *     }
                     */
                    "application/json": components["schemas"]["NewApiKeyAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1AccountsAccountIdCredentialsReset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new credentials */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70",
                     *       "username": "acme-fcb691",
                     *       "password": "Zp0xQm4-Lw7eT2vbNs9Ka1Jc"
                     *     }
                     */
                    "application/json": components["schemas"]["CredentialsAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1AccountsAccountIdLines: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Receipt lines"
                 *     }
                 */
                "application/json": components["schemas"]["CreateLineDto"];
            };
        };
        responses: {
            /** @description The line */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                     *       "name": "Receipt lines"
                     *     }
                     */
                    "application/json": components["schemas"]["LineAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1ApiKeys: {
        parameters: {
            query?: {
                account_id?: string;
                workstream_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "0193a6f2-9f50-7172-8e84-6da2c05b8fb4",
                     *         "scope": "workstream",
                     *         "account_id": "0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70",
                     *         "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *         "prefix": "wlk_QK3s",
                     *         "created_at": "2026-11-30T09:15:00.000Z",
                     *         "last_used_at": "2026-11-30T09:25:00.000Z",
                     *         "revoked_at": null,
                     *         "expires_at": null,
                     *         "rotated_from_id": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["ApiKeyAnswer"][];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    deleteAdminV1ApiKeysKeyId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1ApiKeysKeyIdRotate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md. */
                "Idempotency-Key"?: string;
            };
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "overlap_seconds": 3600
                 *     }
                 */
                "application/json": components["schemas"]["RotateApiKeyDto"];
            };
        };
        responses: {
            /** @description The new key */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f4-0a11-7b22-8c33-d419372cf62b",
                     *       "key": "wlk_R7tyM1c8Wq2zXs5Lp0VbHn6DgEa3JkFu"
                     *     }
                     */
                    "application/json": components["schemas"]["NewApiKeyAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The assignment is no longer yours: its lease ran out"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1Runs: {
        parameters: {
            query?: {
                account_id?: string;
                line_id?: string;
                status?: "Processing" | "Processed";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of runs */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "runs": [
                     *         {
                     *           "id": "0193a6f3-0a11-7b22-9c33-6da2c05b8fb4",
                     *           "account_id": "0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70",
                     *           "line_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                     *           "api": "v4",
                     *           "status": "Processing",
                     *           "unit_count": 2,
                     *           "pending_units": 1,
                     *           "abort_requested": false,
                     *           "created_at": "2026-11-30T09:15:00.000Z",
                     *           "processed_at": null
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["RunPageAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1Tasks: {
        parameters: {
            query?: {
                workstream_id?: string;
                state?: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "ERROR";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tasks */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "tasks": [
                     *         {
                     *           "task_id": "tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5",
                     *           "state": "COMPLETED",
                     *           "media_key": "med_0193a6f3-2c33-7d44-9e55-8fc4e27da1d6",
                     *           "configuration_id": "0193a6f2-7d3e-7f50-9c62-4b80ae3f6d92",
                     *           "bucket_id": null,
                     *           "created_at": "2026-11-30T09:15:00.000Z",
                     *           "updated_at": "2026-11-30T09:25:00.000Z",
                     *           "result": {
                     *             "updated_tags": [
                     *               {
                     *                 "value": "receipt",
                     *                 "confidence_score": 0.97
                     *               }
                     *             ],
                     *             "existing_tags": [
                     *               {
                     *                 "value": "document",
                     *                 "confidence_score": 0.6
                     *               }
                     *             ],
                     *             "metadata": [
                     *               {
                     *                 "key": "store",
                     *                 "value": "north"
                     *               }
                     *             ]
                     *           },
                     *           "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *           "account_id": "0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJjIjoiMjAyNi0xMS0zMFQwOToxNTowMFoiLCJpIjoidHNrXzAxOTMifQ"
                     *     }
                     */
                    "application/json": components["schemas"]["TaskPageAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1Workers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ann@example.com",
                 *       "name": "Ann"
                 *     }
                 */
                "application/json": components["schemas"]["CreateWorkerDto"];
            };
        };
        responses: {
            /** @description The worker */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f4-1b22-7c33-9d44-e52a483d073c",
                     *       "token": "wkt_9c1d4b7a2f6e8d5c1b0a9e8f7d6c5b4a"
                     *     }
                     */
                    "application/json": components["schemas"]["NewWorkerAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The assignment is no longer yours: its lease ran out"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1Workstreams: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "account_id": "0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70",
                 *       "name": "Receipts",
                 *       "use_cases": [
                 *         {
                 *           "id": "uc-1",
                 *           "task_definition_ids": [
                 *             "td-1"
                 *           ]
                 *         }
                 *       ],
                 *       "qc_score_threshold": 0.7,
                 *       "qc_sample_rate": 0.05
                 *     }
                 */
                "application/json": components["schemas"]["CreateWorkstreamDto"];
            };
        };
        responses: {
            /** @description The workstream */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "account_id": "0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70",
                     *       "name": "Receipts",
                     *       "use_cases": [
                     *         {
                     *           "id": "uc-1",
                     *           "task_definition_ids": [
                     *             "td-1"
                     *           ]
                     *         }
                     *       ],
                     *       "qc_score_threshold": 0.7,
                     *       "qc_sample_rate": 0.05,
                     *       "created_at": "2026-11-30T09:15:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["WorkstreamAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1WorkstreamsWorkstreamIdApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The key (secret shown once) */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f2-9f50-7172-8e84-6da2c05b8fb4",
                     *       "key": "wlk_QK3sX2b9Vt0cJrHq7LmYp4NfAe8GdKw1"
                     *     }
                     */
                    "application/json": components["schemas"]["NewApiKeyAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1WorkstreamsWorkstreamIdBuckets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "driver": "s3",
                 *       "endpoint": "https://s3.eu-west-1.amazonaws.com",
                 *       "region": "eu-west-1",
                 *       "bucket": "client-images",
                 *       "prefix": "photos/",
                 *       "access_key_id": "AKIAIOSFODNN7EXAMPLE",
                 *       "secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
                 *     }
                 */
                "application/json": components["schemas"]["CreateBucketDto"];
            };
        };
        responses: {
            /** @description The bucket */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "bkt_3MvU9c2LqT",
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "driver": "s3",
                     *       "endpoint": "https://s3.eu-west-1.amazonaws.com",
                     *       "region": "eu-west-1",
                     *       "bucket": "client-images",
                     *       "prefix": "photos/",
                     *       "access_key_id": "AKIAIOSFODNN7EXAMPLE",
                     *       "force_path_style": false,
                     *       "created_at": "2026-11-30T09:15:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BucketAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1WorkstreamsWorkstreamIdConfigurations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Receipts",
                 *       "extended_events": true,
                 *       "tool_project_id": "tp-7"
                 *     }
                 */
                "application/json": components["schemas"]["CreateConfigurationDto"];
            };
        };
        responses: {
            /** @description The configuration */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f2-7d3e-7f50-9c62-4b80ae3f6d92",
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "name": "Receipts",
                     *       "extended_events": true,
                     *       "tool_project_id": "tp-7",
                     *       "created_at": "2026-11-30T09:15:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["ConfigurationAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1WorkstreamsWorkstreamIdReportsQuality: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                group_by?: "day" | "worker" | "use_case" | "task_definition";
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report (JSON, or CSV with format=csv) */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "kind": "quality",
                     *       "from": "2026-11-01T00:00:00.000Z",
                     *       "to": null,
                     *       "group_by": "worker",
                     *       "groups": [
                     *         {
                     *           "key": "ann@example.com",
                     *           "count": 2,
                     *           "mean_score": 0.85,
                     *           "p50_score": 0.85,
                     *           "p90_score": 0.89,
                     *           "min_score": 0.8,
                     *           "max_score": 0.9,
                     *           "errors": {
                     *             "missing_box": 1
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["QualityReportAnswer"];
                    /**
                     * @example key,count,mean_score,p50_score,p90_score,min_score,max_score,errors
                     *     ann@example.com,2,0.85,0.85,0.89,0.8,0.9,missing_box=1
                     */
                    "text/csv": string;
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1WorkstreamsWorkstreamIdReportsThroughput: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                group_by?: "day" | "worker" | "use_case" | "task_definition";
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report (JSON, or CSV with format=csv) */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "kind": "throughput",
                     *       "from": null,
                     *       "to": null,
                     *       "group_by": null,
                     *       "groups": [
                     *         {
                     *           "key": null,
                     *           "records": 3,
                     *           "tasks": 3,
                     *           "subtasks": 0,
                     *           "duration_seconds": 285,
                     *           "mean_duration_seconds": 95,
                     *           "tasks_per_hour": 37.89
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ThroughputReportAnswer"];
                    /**
                     * @example key,records,tasks,subtasks,duration_seconds,mean_duration_seconds,tasks_per_hour
                     *     ,3,3,0,285,95,37.89
                     */
                    "text/csv": string;
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1WorkstreamsWorkstreamIdTaskQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The quota */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "day": {
                     *         "limit": 20000,
                     *         "default_limit": 10000,
                     *         "custom": true,
                     *         "used": 412,
                     *         "resets_at": "2026-12-01T00:00:00.000Z"
                     *       },
                     *       "week": {
                     *         "limit": 100000,
                     *         "default_limit": 10000,
                     *         "custom": true,
                     *         "used": 2950,
                     *         "resets_at": "2026-12-07T00:00:00.000Z"
                     *       },
                     *       "month": {
                     *         "limit": 10000,
                     *         "default_limit": 10000,
                     *         "custom": false,
                     *         "used": 8100,
                     *         "resets_at": "2026-12-01T00:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TaskQuotaAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    putAdminV1WorkstreamsWorkstreamIdTaskQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "day": 20000,
                 *       "week": 100000,
                 *       "month": null
                 *     }
                 */
                "application/json": components["schemas"]["SetTaskQuotaDto"];
            };
        };
        responses: {
            /** @description The quota */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "day": {
                     *         "limit": 20000,
                     *         "default_limit": 10000,
                     *         "custom": true,
                     *         "used": 412,
                     *         "resets_at": "2026-12-01T00:00:00.000Z"
                     *       },
                     *       "week": {
                     *         "limit": 100000,
                     *         "default_limit": 10000,
                     *         "custom": true,
                     *         "used": 2950,
                     *         "resets_at": "2026-12-07T00:00:00.000Z"
                     *       },
                     *       "month": {
                     *         "limit": 10000,
                     *         "default_limit": 10000,
                     *         "custom": false,
                     *         "used": 8100,
                     *         "resets_at": "2026-12-01T00:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TaskQuotaAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getConsole: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en"><head><title>Workline console</title>…
                     */
                    "text/html": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getConsoleConsoleCss: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSS */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example body { font-family: sans-serif; }
                     *     …
                     */
                    "text/css": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getConsoleConsoleJs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description JavaScript */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example 'use strict';
                     *     …
                     */
                    "text/javascript": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en"><head><title>Workline API</title>…
                     */
                    "text/html": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocsAsyncapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description AsyncAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "asyncapi": "3.1.0",
                     *       "info": {
                     *         "title": "Workline topics",
                     *         "version": "1"
                     *       },
                     *       "channels": {}
                     *     }
                     */
                    "application/json": Record<string, never>;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocsOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "openapi": "3.1.0",
                     *       "info": {
                     *         "title": "Workline",
                     *         "version": "1"
                     *       },
                     *       "paths": {}
                     *     }
                     */
                    "application/json": Record<string, never>;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocsSwaggerUiFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "swagger-ui.css" | "swagger-ui-bundle.js" | "workline-init.js";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSS or JavaScript */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example /*! Swagger UI *\/ … */
                    "text/javascript": string;
                    /** @example .swagger-ui { … } */
                    "text/css": string;
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocsV3MigrationMd: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # Moving from platform API v3 to v4
                     *
                     *     | v3 | v4 |
                     *     |---|---|
                     *     | POST /v3/tasks | POST /v4/runs |
                     */
                    "text/markdown": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "components": {
                     *         "gateway": {
                     *           "status": "up",
                     *           "instance_id": "gateway-7f3a"
                     *         },
                     *         "redis": {
                     *           "status": "up"
                     *         },
                     *         "performance": {
                     *           "status": "up",
                     *           "instance_id": "performance-19c2"
                     *         },
                     *         "oversight": {
                     *           "status": "up",
                     *           "instance_id": "oversight-8d04"
                     *         },
                     *         "platform-runs": {
                     *           "status": "up",
                     *           "instance_id": "platform-runs-2b7e"
                     *         },
                     *         "webhook-dispatcher": {
                     *           "status": "up",
                     *           "instance_id": "webhook-dispatcher-6a11"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["HealthAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description A service did not answer in time */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "unavailable",
                     *       "message": "redis is down: connect ECONNREFUSED 127.0.0.1:6379",
                     *       "components": {
                     *         "gateway": {
                     *           "status": "up",
                     *           "instance_id": "gateway-7f3a"
                     *         },
                     *         "redis": {
                     *           "status": "down",
                     *           "detail": "connect ECONNREFUSED 127.0.0.1:6379"
                     *         },
                     *         "performance": {
                     *           "status": "up",
                     *           "instance_id": "performance-19c2"
                     *         },
                     *         "oversight": {
                     *           "status": "up",
                     *           "instance_id": "oversight-8d04"
                     *         },
                     *         "platform-runs": {
                     *           "status": "up",
                     *           "instance_id": "platform-runs-2b7e"
                     *         },
                     *         "webhook-dispatcher": {
                     *           "status": "up",
                     *           "instance_id": "webhook-dispatcher-6a11"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["HealthAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getHealthLive: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": components["schemas"]["LiveAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getHealthReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "components": {
                     *         "gateway": {
                     *           "status": "up",
                     *           "instance_id": "gateway-7f3a"
                     *         },
                     *         "redis": {
                     *           "status": "up"
                     *         },
                     *         "performance": {
                     *           "status": "up",
                     *           "instance_id": "performance-19c2"
                     *         },
                     *         "oversight": {
                     *           "status": "up",
                     *           "instance_id": "oversight-8d04"
                     *         },
                     *         "platform-runs": {
                     *           "status": "up",
                     *           "instance_id": "platform-runs-2b7e"
                     *         },
                     *         "webhook-dispatcher": {
                     *           "status": "up",
                     *           "instance_id": "webhook-dispatcher-6a11"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["HealthAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description A service did not answer in time */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "unavailable",
                     *       "message": "redis is down: connect ECONNREFUSED 127.0.0.1:6379",
                     *       "components": {
                     *         "gateway": {
                     *           "status": "up",
                     *           "instance_id": "gateway-7f3a"
                     *         },
                     *         "redis": {
                     *           "status": "down",
                     *           "detail": "connect ECONNREFUSED 127.0.0.1:6379"
                     *         },
                     *         "performance": {
                     *           "status": "up",
                     *           "instance_id": "performance-19c2"
                     *         },
                     *         "oversight": {
                     *           "status": "up",
                     *           "instance_id": "oversight-8d04"
                     *         },
                     *         "platform-runs": {
                     *           "status": "up",
                     *           "instance_id": "platform-runs-2b7e"
                     *         },
                     *         "webhook-dispatcher": {
                     *           "status": "up",
                     *           "instance_id": "webhook-dispatcher-6a11"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["HealthAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getMediaTasksTaskId: {
        parameters: {
            query: {
                expires: number;
                signature: string;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The media bytes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Metrics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # HELP http_requests_total HTTP requests answered, by route and status
                     *     # TYPE http_requests_total counter
                     *     http_requests_total{method="POST",route="/v1/tasks",status="201"} 42
                     */
                    "text/plain": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    putUploadsMediaMediaKey: {
        parameters: {
            query: {
                expires: number;
                signature: string;
            };
            header?: never;
            path: {
                media_key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "image/jpeg": string;
                "image/png": string;
                "application/pdf": string;
                "video/mp4": string;
                /** @example Receipt 0001: 2 × coffee, 1 × bagel */
                "text/plain": string;
            };
        };
        responses: {
            /** @description The stored media */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "media_key": "med_0193a6f3-2c33-7d44-9e55-8fc4e27da1d6",
                     *       "content_type": "image/png",
                     *       "size": 48213
                     *     }
                     */
                    "application/json": components["schemas"]["MediaStoredAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    putUploadsPerformanceUploadId: {
        parameters: {
            query: {
                expires: number;
                signature: string;
            };
            header?: never;
            path: {
                upload_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example use_case_id,task_definition_id,worker_id,review_completed_at,review_score
                 *     uc-1,td-1,ann@example.com,2026-11-29T12:00:00Z,0.8
                 *     uc-1,td-1,ann@example.com,2026-11-29T12:05:00Z,7
                 */
                "text/csv": string;
            };
        };
        responses: {
            /** @description The upload */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "upload_id": "upl_0193a6f3-3d44-7e55-8f66-90d5f38eb2e7",
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "kind": "quality",
                     *       "file_name": "reviews-2026-11.csv",
                     *       "state": "queued",
                     *       "expires_at": "2026-11-30T10:15:00.000Z",
                     *       "created_at": "2026-11-30T09:15:00.000Z",
                     *       "received_at": "2026-11-30T09:16:00.000Z",
                     *       "started_at": null,
                     *       "finished_at": null,
                     *       "bytes": 183,
                     *       "rows_processed": 0,
                     *       "rows_accepted": 0,
                     *       "rows_stored": 0,
                     *       "rows_replaced": 0,
                     *       "rows_duplicates_ignored": 0,
                     *       "rows_rejected": 0,
                     *       "rejections": [],
                     *       "rejections_truncated": false,
                     *       "failure": null
                     *     }
                     */
                    "application/json": components["schemas"]["PerformanceUploadAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The assignment is no longer yours: its lease ran out"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1ApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key: id, scope, account, workstream */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f2-9f50-7172-8e84-6da2c05b8fb4",
                     *       "scope": "workstream",
                     *       "account_id": "0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70",
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyDescriptionAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1Deliveries: {
        parameters: {
            query?: {
                task_id?: string;
                status?: "pending" | "delivered" | "dead";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "deliveries": [
                     *         {
                     *           "id": "0193a6f3-4e55-7f66-9077-a1e6049fc3f8",
                     *           "event_type": "task.result_available",
                     *           "task_id": "tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5",
                     *           "run_id": null,
                     *           "url": "https://client.example.com/hooks/workline",
                     *           "status": "delivered",
                     *           "attempt_count": 1,
                     *           "next_attempt_at": null,
                     *           "last_status_code": 200,
                     *           "last_error": null,
                     *           "created_at": "2026-11-30T09:25:00.000Z",
                     *           "delivered_at": "2026-11-30T09:25:00.300Z",
                     *           "dead_at": null
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["DeliveryPageAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1DeliveriesId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f3-4e55-7f66-9077-a1e6049fc3f8",
                     *       "event_type": "task.result_available",
                     *       "task_id": "tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5",
                     *       "run_id": null,
                     *       "url": "https://client.example.com/hooks/workline",
                     *       "status": "delivered",
                     *       "attempt_count": 1,
                     *       "next_attempt_at": null,
                     *       "last_status_code": 200,
                     *       "last_error": null,
                     *       "created_at": "2026-11-30T09:25:00.000Z",
                     *       "delivered_at": "2026-11-30T09:25:00.300Z",
                     *       "dead_at": null,
                     *       "attempts": [
                     *         {
                     *           "number": 1,
                     *           "attempted_at": "2026-11-30T09:25:00.000Z",
                     *           "status_code": 200,
                     *           "duration_ms": 184,
                     *           "error": null,
                     *           "response_excerpt": "ok"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["DeliveryDetailAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1DeliveriesIdRedeliver: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new delivery */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f3-4e55-7f66-9077-a1e6049fc3f8",
                     *       "event_type": "task.result_available",
                     *       "task_id": "tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5",
                     *       "run_id": null,
                     *       "url": "https://client.example.com/hooks/workline",
                     *       "status": "pending",
                     *       "attempt_count": 1,
                     *       "next_attempt_at": "2026-11-30T10:00:00.000Z",
                     *       "last_status_code": 200,
                     *       "last_error": null,
                     *       "created_at": "2026-11-30T09:25:00.000Z",
                     *       "delivered_at": null,
                     *       "dead_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["DeliveryAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1SignedUrl: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "configuration_id": "0193a6f2-7d3e-7f50-9c62-4b80ae3f6d92"
                 *     }
                 */
                "application/json": components["schemas"]["CreateMediaGrantDto"];
            };
        };
        responses: {
            /** @description The upload URL */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "media_upload_url": "https://workline.example.com/uploads/media/med_0193a6f3-2c33-7d44-9e55-8fc4e27da1d6?expires=1796030100&signature=3f1d9c0e4b7a2f6e8d5c1b0a9e8f7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e",
                     *       "media_key": "med_0193a6f3-2c33-7d44-9e55-8fc4e27da1d6",
                     *       "expires_at": "2026-11-30T10:15:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["MediaGrantAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1Tasks: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "media_key": "med_0193a6f3-2c33-7d44-9e55-8fc4e27da1d6",
                 *       "configuration_id": "0193a6f2-7d3e-7f50-9c62-4b80ae3f6d92",
                 *       "callback_url": "https://client.example.com/hooks/workline",
                 *       "existing_tags": [
                 *         {
                 *           "value": "document",
                 *           "confidence_score": 0.6
                 *         }
                 *       ],
                 *       "metadata": [
                 *         {
                 *           "key": "store",
                 *           "value": "north"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateTaskDto"];
            };
        };
        responses: {
            /** @description The task */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "task_id": "tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5"
                     *     }
                     */
                    "application/json": components["schemas"]["TaskCreatedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The assignment is no longer yours: its lease ran out"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1TasksId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "task_id": "tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5",
                     *       "state": "COMPLETED",
                     *       "media_key": "med_0193a6f3-2c33-7d44-9e55-8fc4e27da1d6",
                     *       "configuration_id": "0193a6f2-7d3e-7f50-9c62-4b80ae3f6d92",
                     *       "bucket_id": null,
                     *       "created_at": "2026-11-30T09:15:00.000Z",
                     *       "updated_at": "2026-11-30T09:25:00.000Z",
                     *       "result": {
                     *         "updated_tags": [
                     *           {
                     *             "value": "receipt",
                     *             "confidence_score": 0.97
                     *           }
                     *         ],
                     *         "existing_tags": [
                     *           {
                     *             "value": "document",
                     *             "confidence_score": 0.6
                     *           }
                     *         ],
                     *         "metadata": [
                     *           {
                     *             "key": "store",
                     *             "value": "north"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["TaskAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1WorkstreamsWorkstreamIdPerformanceGeneratePresignedUrl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "quality",
                 *       "file_name": "reviews-2026-11.csv"
                 *     }
                 */
                "application/json": components["schemas"]["GeneratePresignedUrlDto"];
            };
        };
        responses: {
            /** @description The upload URL */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "upload_url": "https://workline.example.com/uploads/performance/upl_0193a6f3-3d44-7e55-8f66-90d5f38eb2e7?expires=1796030100&signature=3f1d9c0e4b7a2f6e8d5c1b0a9e8f7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e",
                     *       "upload_id": "upl_0193a6f3-3d44-7e55-8f66-90d5f38eb2e7",
                     *       "expires_at": "2026-11-30T10:15:00.000Z",
                     *       "method": "PUT",
                     *       "content_type": "text/csv"
                     *     }
                     */
                    "application/json": components["schemas"]["PresignedUploadAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1WorkstreamsWorkstreamIdPerformanceUploadsUploadId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
                upload_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The upload */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "upload_id": "upl_0193a6f3-3d44-7e55-8f66-90d5f38eb2e7",
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "kind": "quality",
                     *       "file_name": "reviews-2026-11.csv",
                     *       "state": "completed",
                     *       "expires_at": "2026-11-30T10:15:00.000Z",
                     *       "created_at": "2026-11-30T09:15:00.000Z",
                     *       "received_at": "2026-11-30T09:16:00.000Z",
                     *       "started_at": "2026-11-30T09:16:00.100Z",
                     *       "finished_at": "2026-11-30T09:16:02.400Z",
                     *       "bytes": 183,
                     *       "rows_processed": 2,
                     *       "rows_accepted": 1,
                     *       "rows_stored": 1,
                     *       "rows_replaced": 0,
                     *       "rows_duplicates_ignored": 0,
                     *       "rows_rejected": 1,
                     *       "rejections": [
                     *         {
                     *           "row": 3,
                     *           "errors": [
                     *             {
                     *               "field": "review_score",
                     *               "message": "review_score must be between 0 and 1"
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "rejections_truncated": false,
                     *       "failure": null
                     *     }
                     */
                    "application/json": components["schemas"]["PerformanceUploadAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1WorkstreamsWorkstreamIdReportsQuality: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                group_by?: "day" | "worker" | "use_case" | "task_definition";
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report (JSON, or CSV with format=csv) */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "kind": "quality",
                     *       "from": "2026-11-01T00:00:00.000Z",
                     *       "to": null,
                     *       "group_by": "worker",
                     *       "groups": [
                     *         {
                     *           "key": "ann@example.com",
                     *           "count": 2,
                     *           "mean_score": 0.85,
                     *           "p50_score": 0.85,
                     *           "p90_score": 0.89,
                     *           "min_score": 0.8,
                     *           "max_score": 0.9,
                     *           "errors": {
                     *             "missing_box": 1
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["QualityReportAnswer"];
                    /**
                     * @example key,count,mean_score,p50_score,p90_score,min_score,max_score,errors
                     *     ann@example.com,2,0.85,0.85,0.89,0.8,0.9,missing_box=1
                     */
                    "text/csv": string;
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1WorkstreamsWorkstreamIdReportsThroughput: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                group_by?: "day" | "worker" | "use_case" | "task_definition";
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report (JSON, or CSV with format=csv) */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                     *       "kind": "throughput",
                     *       "from": null,
                     *       "to": null,
                     *       "group_by": null,
                     *       "groups": [
                     *         {
                     *           "key": null,
                     *           "records": 3,
                     *           "tasks": 3,
                     *           "subtasks": 0,
                     *           "duration_seconds": 285,
                     *           "mean_duration_seconds": 95,
                     *           "tasks_per_hour": 37.89
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ThroughputReportAnswer"];
                    /**
                     * @example key,records,tasks,subtasks,duration_seconds,mean_duration_seconds,tasks_per_hour
                     *     ,3,3,0,285,95,37.89
                     */
                    "text/csv": string;
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1WorkstreamsWorkstreamIdTaskCompleted: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "use_case_id": "uc-1",
                 *       "task_definition_id": "td-1",
                 *       "task_id": "task-0001",
                 *       "worker_id": "bob@example.com",
                 *       "task_completed_at": "2026-11-29T12:00:00Z",
                 *       "duration_seconds": 95,
                 *       "task_count": 1
                 *     }
                 */
                "application/json": components["schemas"]["ThroughputRecord"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Record stored"
                     *     }
                     */
                    "application/json": components["schemas"]["RecordAcceptedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1WorkstreamsWorkstreamIdTaskReviewed: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "workstream_id": "0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81",
                 *       "use_case_id": "uc-1",
                 *       "task_definition_id": "td-1",
                 *       "unique_id": "review-0001",
                 *       "task_id": "task-0001",
                 *       "worker_id": "ann@example.com",
                 *       "review_completed_at": "2026-11-29T12:00:00Z",
                 *       "review_score": 0.9,
                 *       "review_type": "QA",
                 *       "errors": {
                 *         "missing_box": 1
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["QualityReviewRecord"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Record stored"
                     *     }
                     */
                    "application/json": components["schemas"]["RecordAcceptedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden: this API key is not valid for workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV3Tasks: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "template_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                 *       "callback_url": "https://client.example.com/v3",
                 *       "resources": [
                 *         {
                 *           "identifier": "img-1",
                 *           "image_url": "https://example.com/1.jpg"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateV3TaskBody"];
            };
        };
        responses: {
            /** @description The task */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "template_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                     *       "task_id": "0193a6f3-0a11-7b22-9c33-6da2c05b8fb4",
                     *       "status": "In-Progress",
                     *       "started_at": "2026-11-30T09:15:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["V3TaskCreatedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 103,
                     *       "error": "Body is invalid",
                     *       "detail": "missing key template_id"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 401,
                     *       "error": "Unauthorized access"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description The API was withdrawn (V3_ENABLED=false) */
            410: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 410,
                     *       "error": "API version 3 has been withdrawn: use /v4 (migration notes: https://workline.example.com/docs/v3-migration.md)"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 429,
                     *       "error": "Rate limit of 600 requests per minute exceeded; retry in 30 s"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 104,
                     *       "error": "Internal error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
        };
    };
    getV3TasksTaskId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "template_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                     *       "task_id": "0193a6f3-0a11-7b22-9c33-6da2c05b8fb4",
                     *       "status": "Completed",
                     *       "started_at": "2026-11-30T09:15:00Z",
                     *       "finished_at": "2026-11-30T09:31:00Z",
                     *       "resources": [
                     *         {
                     *           "identifier": "img-1",
                     *           "image_url": "https://example.com/1.jpg",
                     *           "label": "receipt",
                     *           "extra": {
                     *             "status": "Completed"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["V3TaskAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 103,
                     *       "error": "Body is invalid",
                     *       "detail": "missing key template_id"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 401,
                     *       "error": "Unauthorized access"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 404,
                     *       "error": "Not found"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description The API was withdrawn (V3_ENABLED=false) */
            410: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 410,
                     *       "error": "API version 3 has been withdrawn: use /v4 (migration notes: https://workline.example.com/docs/v3-migration.md)"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 429,
                     *       "error": "Rate limit of 600 requests per minute exceeded; retry in 30 s"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    Link: components["headers"]["Link"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 104,
                     *       "error": "Internal error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
        };
    };
    getV4Lines: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The lines */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                     *         "name": "Receipt lines"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["LineAnswer"][];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Bad credentials"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV4Lines: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "My own line"
                 *     }
                 */
                "application/json": {
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Never: lines are provisioned by Workline (403) */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Problem parsing the body"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Bad credentials"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: missing key line_id"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV4Runs: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "line_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                 *       "callback_url": "https://client.example.com/runs",
                 *       "units": [
                 *         {
                 *           "identifier": "img-1",
                 *           "image_url": "https://example.com/1.jpg"
                 *         },
                 *         {
                 *           "identifier": "img-2",
                 *           "image_url": "https://example.com/2.jpg"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateRunBody"];
            };
        };
        responses: {
            /** @description The run */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f3-0a11-7b22-9c33-6da2c05b8fb4",
                     *       "line_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                     *       "status": "Processing",
                     *       "created_at": "2026-11-30T09:15:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RunCreatedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Problem parsing the body"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Bad credentials"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Not found"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: missing key line_id"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV4RunsId: {
        parameters: {
            query?: {
                units_offset?: number;
                units_limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0193a6f3-0a11-7b22-9c33-6da2c05b8fb4",
                     *       "line_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                     *       "status": "Processed",
                     *       "created_at": "2026-11-30T09:15:00Z",
                     *       "processed_at": "2026-11-30T09:40:00Z",
                     *       "units": [
                     *         {
                     *           "input": {
                     *             "identifier": "img-1",
                     *             "image_url": "https://example.com/1.jpg"
                     *           },
                     *           "output": {
                     *             "label": "receipt"
                     *           },
                     *           "meta": {
                     *             "status": "Completed",
                     *             "created_at": "2026-11-30T09:15:00Z",
                     *             "processed_at": "2026-11-30T09:31:00Z"
                     *           }
                     *         },
                     *         {
                     *           "input": {
                     *             "identifier": "img-2",
                     *             "image_url": "https://example.com/2.jpg"
                     *           },
                     *           "output": {},
                     *           "meta": {
                     *             "status": "Flagged",
                     *             "created_at": "2026-11-30T09:15:00Z",
                     *             "processed_at": "2026-11-30T09:40:00Z"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["RunAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Bad credentials"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Not found"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: missing key line_id"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    deleteV4RunsId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Never: runs are kept (403) */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Bad credentials"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Forbidden"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Not found"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV4RunsIdAbort: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The abort is under way */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The run is being aborted"
                     *     }
                     */
                    "application/json": components["schemas"]["MessageAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Bad credentials"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Not found"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not allowed in the current state */
            405: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The run is already processed and cannot be aborted"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The run is already being aborted"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postWorkforceV1AssignmentsIdComplete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "output": {
                 *         "label": "receipt"
                 *       },
                 *       "next": {
                 *         "kind": "task"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CompleteUnitAssignmentDto"] | components["schemas"]["CompleteTaskAssignmentDto"];
            };
        };
        responses: {
            /** @description Completed */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "assignment_id": "asgu_0193a6f3-5f66-7077-8188-b2f7150ad409",
                     *       "status": "Completed",
                     *       "next": {
                     *         "assignment_id": "asgt_0193a6f3-6077-7188-9299-c308261be51a",
                     *         "kind": "task",
                     *         "task_id": "tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5",
                     *         "media_url": "https://workline.example.com/media/tasks/tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5?expires=1796030100&signature=3f1d9c0e4b7a2f6e8d5c1b0a9e8f7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e",
                     *         "media_type": "image/png",
                     *         "existing_tags": [
                     *           {
                     *             "value": "document",
                     *             "confidence_score": 0.6
                     *           }
                     *         ],
                     *         "metadata": [
                     *           {
                     *             "key": "store",
                     *             "value": "north"
                     *           }
                     *         ],
                     *         "lease_expires_at": "2026-11-30T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["AssignmentOutcomeAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The assignment is no longer yours: its lease ran out"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postWorkforceV1AssignmentsIdFlag: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reason": "The image is blank"
                 *     }
                 */
                "application/json": components["schemas"]["FlagAssignmentDto"];
            };
        };
        responses: {
            /** @description Flagged */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "assignment_id": "asgt_0193a6f3-6077-7188-9299-c308261be51a",
                     *       "kind": "task",
                     *       "task_id": "tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5",
                     *       "state": "ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["AssignmentOutcomeAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "workstream 0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81 not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The assignment is no longer yours: its lease ran out"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postWorkforceV1AssignmentsNext: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "unit",
                 *       "line_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3"
                 *     }
                 */
                "application/json": components["schemas"]["NextAssignmentDto"];
            };
        };
        responses: {
            /** @description The assignment */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "assignment_id": "asgu_0193a6f3-5f66-7077-8188-b2f7150ad409",
                     *       "kind": "unit",
                     *       "run_id": "0193a6f3-0a11-7b22-9c33-6da2c05b8fb4",
                     *       "line_id": "0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3",
                     *       "input": {
                     *         "identifier": "img-1",
                     *         "image_url": "https://example.com/1.jpg"
                     *       },
                     *       "lease_expires_at": "2026-11-30T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["UnitAssignmentAnswer"] | components["schemas"]["TaskAssignmentAnswer"];
                };
            };
            /** @description Nothing to do */
            204: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is not valid JSON: Unexpected end of JSON input"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid x-api-key"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Body is larger than the limit of 10485760 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Content-Type must be application/json (got text/plain)"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid request: review_score must be between 0 and 1; property colour should not exist",
                     *       "errors": [
                     *         {
                     *           "field": "review_score",
                     *           "message": "review_score must be between 0 and 1"
                     *         },
                     *         {
                     *           "field": "colour",
                     *           "message": "property colour should not exist"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Rate limit of 1200 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Retry-After": components["headers"]["Retry-After-When-Known"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Internal server error",
                     *       "error_id": "5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f"
                     *     }
                     */
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
}
